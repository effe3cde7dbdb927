import { useMutation } from '@tanstack/react-query';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { Button } from '@/components/Button';
import { Dialog } from '@/components/Dialog';
import { TextArea } from '@/components/Field';
import { ApiError } from '@/lib/api';
import { FEEDBACK, MESSAGES } from '@/lib/constants';
import { toast } from '@/lib/toast';
import { submitFeedback, type FeedbackBody, type HistoryItem } from '../api';

export const NEGATIVE_REASONS = [
  { key: 'emotions', label: 'Emotions' },
  { key: 'inaccurate_clone', label: 'Inaccurate clone' },
  { key: 'glitches', label: 'Glitches' },
  { key: 'audio_quality', label: 'Audio quality' },
  { key: 'other', label: 'Other' },
] as const;

type ReasonKey = (typeof NEGATIVE_REASONS)[number]['key'];

/** Feedback text rule (spec §5): empty is fine, 1–19 characters is refused, max 200. */
export function validateFeedbackText(text: string): string | null {
  const length = text.trim().length;
  if (length > 0 && length < FEEDBACK.minLength) return MESSAGES.feedbackTooShort;
  if (text.length > FEEDBACK.maxLength) return `Feedback must be at most ${FEEDBACK.maxLength} characters.`;
  return null;
}

/** Thumbs-up opens the dialog only for text of at most 400 characters; thumbs-down always. */
export function shouldOpenFeedbackDialog(thumbsUp: boolean, text: string | undefined): boolean {
  return !thumbsUp || (text ?? '').length <= FEEDBACK.dialogTextThreshold;
}

interface FeedbackDialogProps {
  item: HistoryItem;
  thumbsUp: boolean;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onSubmitted?: (body: FeedbackBody) => void;
}

export function FeedbackDialog({ item, thumbsUp, open, onOpenChange, onSubmitted }: FeedbackDialogProps) {
  const textId = useId();
  const counterId = useId();
  const [text, setText] = useState('');
  const [reasons, setReasons] = useState<Record<ReasonKey, boolean>>({
    emotions: false,
    inaccurate_clone: false,
    glitches: false,
    audio_quality: false,
    other: false,
  });
  const [error, setError] = useState<string | null>(null);
  const reviewed = item.feedback?.review_status === 'reviewed';

  useEffect(() => {
    if (!open) return;
    const fb = item.feedback;
    const same = fb && fb.thumbs_up === thumbsUp;
    setText(same ? (fb.feedback ?? '') : '');
    setReasons({
      emotions: Boolean(same && fb.emotions),
      inaccurate_clone: Boolean(same && fb.inaccurate_clone),
      glitches: Boolean(same && fb.glitches),
      audio_quality: Boolean(same && fb.audio_quality),
      other: Boolean(same && fb.other),
    });
    setError(null);
  }, [open, item, thumbsUp]);

  const mutation = useMutation({
    mutationFn: (body: FeedbackBody) => submitFeedback(item.history_item_id, body),
    onSuccess: (_, body) => {
      toast.success('Thank you for your feedback!');
      onSubmitted?.(body);
      onOpenChange(false);
    },
    onError: (err) =>
      setError(err instanceof ApiError && err.status < 500 ? err.message : MESSAGES.genericHttpError),
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (reviewed) {
      setError(MESSAGES.feedbackReviewed);
      return;
    }
    const problem = validateFeedbackText(text);
    if (problem) {
      setError(problem);
      return;
    }
    setError(null);
    mutation.mutate({
      thumbs_up: thumbsUp,
      feedback: text.trim(),
      ...(thumbsUp
        ? { emotions: false, inaccurate_clone: false, glitches: false, audio_quality: false, other: false }
        : reasons),
    });
  };

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={thumbsUp ? 'What did you like?' : 'What went wrong?'}
      description="Your feedback helps us improve the generated speech."
    >
      <form onSubmit={onSubmit} noValidate className="space-y-4">
        {reviewed && (
          <p role="status" className="rounded-lg bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100">
            {MESSAGES.feedbackReviewed}
          </p>
        )}
        {!thumbsUp && (
          <fieldset>
            <legend className="mb-2 text-sm font-medium">Issues (optional)</legend>
            <div className="grid grid-cols-2 gap-2">
              {NEGATIVE_REASONS.map((r) => (
                <label key={r.key} className="flex cursor-pointer items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    checked={reasons[r.key]}
                    disabled={reviewed}
                    onChange={(e) => setReasons((x) => ({ ...x, [r.key]: e.target.checked }))}
                    className="size-4 accent-gray-900 dark:accent-white"
                  />
                  {r.label}
                </label>
              ))}
            </div>
          </fieldset>
        )}
        <div>
          <label htmlFor={textId} className="mb-1.5 block text-sm font-medium">
            Feedback
          </label>
          <TextArea
            id={textId}
            rows={4}
            value={text}
            maxLength={FEEDBACK.maxLength}
            disabled={reviewed}
            aria-describedby={counterId}
            aria-invalid={error ? true : undefined}
            placeholder="Tell us more (optional, at least 20 characters)"
            onChange={(e) => {
              setText(e.target.value.slice(0, FEEDBACK.maxLength));
              setError(null);
            }}
          />
          <p id={counterId} className="mt-1 text-right text-xs tabular-nums text-gray-500">
            {text.length} / {FEEDBACK.maxLength}
          </p>
        </div>
        {error && (
          <p role="alert" className="text-sm text-red-600 dark:text-red-400">
            {error}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" loading={mutation.isPending} disabled={reviewed}>
            Submit feedback
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
