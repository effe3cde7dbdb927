import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { Select, TextField } from '@/components/Field';
import { ApiError, httpErrorMessage } from '@/lib/api';
import { toast } from '@/lib/toast';
import { browserTimeZone } from '@/lib/timezone';
import { accountUserQueryKey, completeSurvey, initiateChecklist, type AccountUser, type OnboardingSurvey } from '../api';

export const ROLES = ['Developer', 'Content creator', 'Educator', 'Marketer', 'Researcher', 'Other'];
export const SOURCES = ['Search engine', 'Social media', 'A friend or colleague', 'Article or blog', 'Other'];

type SurveyErrors = Partial<Record<keyof OnboardingSurvey, string>>;

/** Client-side check of the survey (the server checks the same and more). */
export function surveyErrors(s: OnboardingSurvey): SurveyErrors {
  const errors: SurveyErrors = {};
  if (!s.first_name.trim()) errors.first_name = 'Please enter your first name.';
  else if (s.first_name.trim().length > 100) errors.first_name = 'At most 100 characters.';
  if (!s.role.trim()) errors.role = 'Please choose a role.';
  return errors;
}

/** The server's 422 as per-field messages (detail[].loc names the field). */
export function serverSurveyErrors(err: ApiError): SurveyErrors {
  const out: SurveyErrors = {};
  const detail = (err.payload as { detail?: unknown } | undefined)?.detail;
  if (Array.isArray(detail)) {
    for (const d of detail as Array<{ loc?: unknown[]; msg?: string }>) {
      const field = String(d.loc?.[d.loc.length - 1] ?? '') as keyof OnboardingSurvey;
      if (['first_name', 'role', 'subrole', 'source', 'timezone'].includes(field) && !out[field]) out[field] = d.msg ?? err.message;
    }
  }
  if (Object.keys(out).length === 0) out.first_name = err.message;
  return out;
}

/**
 * The onboarding survey (spec §3 onboarding_survey, §7 onboarding-survey-complete): first name,
 * role, speciality, source; the browser's time zone goes along. Completing it starts the
 * onboarding checklist (spec §4) and calls onDone.
 */
export function OnboardingSurveyForm({ initialFirstName = '', onDone }: { initialFirstName?: string; onDone: (s: OnboardingSurvey) => void }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<OnboardingSurvey>({ first_name: initialFirstName, role: '', subrole: '', source: '' });
  const [errors, setErrors] = useState<SurveyErrors>({});
  const submit = useMutation({
    mutationFn: async (s: OnboardingSurvey) => {
      await completeSurvey(s);
      await initiateChecklist().catch(() => undefined); // the checklist is a bonus: the survey counts
      return s;
    },
    onSuccess: (s) => {
      // Known at once, so the onboarding gate lets the user on before the refetch answers.
      queryClient.setQueryData<AccountUser>(accountUserQueryKey, (u) =>
        u ? { ...u, is_onboarding_completed: true, first_name: s.first_name, onboarding_survey: s } : u,
      );
      void queryClient.invalidateQueries({ queryKey: accountUserQueryKey });
      onDone(s);
    },
    onError: (err) => {
      if (err instanceof ApiError && err.status === 422) setErrors(serverSurveyErrors(err));
      else toast.error(httpErrorMessage(err));
    },
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const found = surveyErrors(form);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      // Keyboard and screen-reader users land on the first field to fix.
      const first = found.first_name ? 'onboarding-first-name' : 'onboarding-role';
      document.getElementById(first)?.focus();
      return;
    }
    const tz = browserTimeZone();
    submit.mutate({
      first_name: form.first_name.trim(),
      role: form.role,
      ...(form.subrole?.trim() ? { subrole: form.subrole.trim() } : {}),
      ...(form.source ? { source: form.source } : {}),
      ...(tz ? { timezone: tz } : {}),
    });
  };
  const set = (k: keyof OnboardingSurvey) => (v: string) => {
    setForm((f) => ({ ...f, [k]: v }));
    setErrors((e) => ({ ...e, [k]: undefined }));
  };
  return (
    <form onSubmit={onSubmit} className="space-y-4" noValidate aria-label="Onboarding survey">
      <TextField
        id="onboarding-first-name"
        label="First name"
        value={form.first_name}
        onChange={(e) => set('first_name')(e.target.value)}
        error={errors.first_name}
        autoComplete="given-name"
        maxLength={100}
        autoFocus
      />
      <div>
        <label htmlFor="onboarding-role" className="mb-1.5 block text-sm font-medium">
          What do you do?
        </label>
        <Select
          id="onboarding-role"
          value={form.role}
          onChange={(e) => set('role')(e.target.value)}
          aria-invalid={errors.role ? true : undefined}
          aria-describedby={errors.role ? 'onboarding-role-error' : undefined}
        >
          <option value="">Choose…</option>
          {ROLES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </Select>
        {errors.role && (
          <p id="onboarding-role-error" className="mt-1.5 text-sm text-red-600 dark:text-red-400">
            {errors.role}
          </p>
        )}
      </div>
      <TextField
        label="Your speciality (optional)"
        value={form.subrole ?? ''}
        onChange={(e) => set('subrole')(e.target.value)}
        error={errors.subrole}
        maxLength={100}
      />
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
        {errors.source && <p className="mt-1.5 text-sm text-red-600 dark:text-red-400">{errors.source}</p>}
      </div>
      <Button type="submit" className="w-full" loading={submit.isPending}>
        Continue
      </Button>
    </form>
  );
}
