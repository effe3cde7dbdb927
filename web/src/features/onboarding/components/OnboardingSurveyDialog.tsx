import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { Select, TextField } from '@/components/Field';
import { httpErrorMessage, isApiError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { browserTimeZone } from '@/features/consent/api';
import { accountUserQueryKey, completeSurvey, initiateChecklist, type OnboardingSurvey } from '../api';
import { useAccountUser } from '../hooks';

export const ROLES = ['Developer', 'Content creator', 'Educator', 'Marketer', 'Researcher', 'Other'];
export const SOURCES = ['Search engine', 'Social media', 'A friend or colleague', 'Article or blog', 'Other'];

/** Client-side check of the survey (the server checks the same and more). */
export function surveyErrors(s: OnboardingSurvey): Partial<Record<keyof OnboardingSurvey, string>> {
  const errors: Partial<Record<keyof OnboardingSurvey, string>> = {};
  if (!s.first_name.trim()) errors.first_name = 'Please enter your first name.';
  else if (s.first_name.trim().length > 100) errors.first_name = 'At most 100 characters.';
  if (!s.role.trim()) errors.role = 'Please choose a role.';
  return errors;
}

/** The onboarding survey (spec §3, §7), shown while is_onboarding_completed is false; it then starts the checklist. */
export function OnboardingSurveyDialog() {
  const queryClient = useQueryClient();
  const user = useAccountUser();
  const [form, setForm] = useState<OnboardingSurvey>({ first_name: '', role: '', subrole: '', source: '' });
  const [errors, setErrors] = useState<ReturnType<typeof surveyErrors>>({});
  const submit = useMutation({
    mutationFn: async (s: OnboardingSurvey) => {
      await completeSurvey(s);
      await initiateChecklist().catch(() => undefined);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountUserQueryKey }),
    onError: (err) => {
      if (isApiError(err, 422)) setErrors({ first_name: err.message });
      else toast.error(httpErrorMessage(err));
    },
  });
  const open = user.data?.is_onboarding_completed === false;
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const found = surveyErrors(form);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    submit.mutate({ ...form, first_name: form.first_name.trim(), timezone: browserTimeZone() });
  };
  const set = (k: keyof OnboardingSurvey) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  return (
    <Dialog open={open} onOpenChange={() => undefined} hideClose title="Welcome to Timbre" description="Tell us a little about yourself.">
      <form onSubmit={onSubmit} className="space-y-4" noValidate>
        <TextField
          label="First name"
          value={form.first_name}
          onChange={(e) => set('first_name')(e.target.value)}
          error={errors.first_name}
          autoComplete="given-name"
          maxLength={100}
        />
        <div>
          <label htmlFor="onboarding-role" className="mb-1.5 block text-sm font-medium">
            What do you do?
          </label>
          <Select id="onboarding-role" value={form.role} onChange={(e) => set('role')(e.target.value)} aria-invalid={errors.role ? true : undefined}>
            <option value="">Choose…</option>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </Select>
          {errors.role && <p className="mt-1.5 text-sm text-red-600">{errors.role}</p>}
        </div>
        <TextField label="Your speciality (optional)" value={form.subrole ?? ''} onChange={(e) => set('subrole')(e.target.value)} maxLength={100} />
        <div>
          <label htmlFor="onboarding-source" className="mb-1.5 block text-sm font-medium">
            How did you hear about us? (optional)
          </label>
          <Select id="onboarding-source" value={form.source ?? ''} onChange={(e) => set('source')(e.target.value)}>
            <option value="">Choose…</option>
            {SOURCES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </Select>
        </div>
        <div className="flex justify-end">
          <Button type="submit" loading={submit.isPending}>
            Continue
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
