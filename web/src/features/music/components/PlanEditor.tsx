import { Button } from '@/components/Button';
import { inputClass } from '@/components/Field';
import { ChevronDownIcon, ChevronUpIcon, PlusIcon, TrashIcon } from '@/components/icons';
import { formatTime } from '@/lib/format';
import { MAX_SECTIONS, parseStyles, planDurationMs, type MusicPlan, type MusicSection } from '../api';

interface PlanEditorProps {
  plan: MusicPlan;
  onChange: (plan: MusicPlan) => void;
  disabled?: boolean;
}

const label = 'mb-1 block text-xs font-medium text-gray-700 dark:text-gray-300';

/** A comma-separated list input that keeps what is typed and reports the parsed list. */
function StylesInput({ id, value, onChange, disabled, placeholder }: { id: string; value: string[]; onChange: (v: string[]) => void; disabled?: boolean; placeholder?: string }) {
  return (
    <input
      id={id}
      className={inputClass}
      defaultValue={value.join(', ')}
      key={value.join('|')}
      placeholder={placeholder}
      disabled={disabled}
      onBlur={(e) => onChange(parseStyles(e.currentTarget.value))}
    />
  );
}

/**
 * The composition plan, editable: global styles (genre, mood, "120 bpm", "D minor", instruments —
 * the composer reads them), and sections with their names (intro, verse, chorus, bridge, outro set
 * the dynamics), durations, local styles and lines; sections can be added, removed and reordered.
 */
export function PlanEditor({ plan, onChange, disabled }: PlanEditorProps) {
  const setSection = (i: number, patch: Partial<MusicSection>) =>
    onChange({ ...plan, sections: plan.sections.map((s, j) => (j === i ? { ...s, ...patch } : s)) });
  const move = (i: number, by: number) => {
    const next = [...plan.sections];
    const [s] = next.splice(i, 1);
    next.splice(i + by, 0, s);
    onChange({ ...plan, sections: next });
  };
  const remove = (i: number) => onChange({ ...plan, sections: plan.sections.filter((_, j) => j !== i) });
  const add = () =>
    onChange({
      ...plan,
      sections: [...plan.sections, { section_name: `Section ${plan.sections.length + 1}`, duration_ms: 8000, positive_local_styles: [], negative_local_styles: [], lines: [] }],
    });

  return (
    <section aria-label="Composition plan" className="rounded-xl border border-gray-200 p-4 dark:border-gray-800">
      <div className="grid gap-3 md:grid-cols-2">
        <div>
          <label htmlFor="plan-positive" className={label}>
            Styles (comma-separated: genre, mood, tempo like “120 bpm”, key like “D minor”, instruments)
          </label>
          <StylesInput id="plan-positive" value={plan.positive_global_styles} disabled={disabled} onChange={(v) => onChange({ ...plan, positive_global_styles: v })} />
        </div>
        <div>
          <label htmlFor="plan-negative" className={label}>
            Styles to avoid (e.g. drums, piano)
          </label>
          <StylesInput id="plan-negative" value={plan.negative_global_styles} disabled={disabled} onChange={(v) => onChange({ ...plan, negative_global_styles: v })} />
        </div>
      </div>

      <ol aria-label="Sections" className="mt-4 space-y-3">
        {plan.sections.map((s, i) => (
          <li key={i} data-testid="plan-section" className="rounded-lg bg-gray-50 p-3 dark:bg-gray-900">
            <div className="flex flex-wrap items-end gap-2">
              <div className="min-w-40 flex-1">
                <label htmlFor={`section-${i}-name`} className={label}>
                  Section name
                </label>
                <input id={`section-${i}-name`} className={inputClass} value={s.section_name} disabled={disabled} maxLength={100} onChange={(e) => setSection(i, { section_name: e.target.value })} />
              </div>
              <div className="w-28">
                <label htmlFor={`section-${i}-duration`} className={label}>
                  Seconds
                </label>
                <input
                  id={`section-${i}-duration`}
                  type="number"
                  min={3}
                  max={120}
                  step={0.5}
                  className={inputClass}
                  value={s.duration_ms / 1000}
                  disabled={disabled}
                  onChange={(e) => setSection(i, { duration_ms: Math.round(Number(e.target.value) * 1000) })}
                />
              </div>
              <Button variant="ghost" size="sm" aria-label={`Move ${s.section_name} up`} disabled={disabled || i === 0} onClick={() => move(i, -1)}>
                <ChevronUpIcon size={14} />
              </Button>
              <Button variant="ghost" size="sm" aria-label={`Move ${s.section_name} down`} disabled={disabled || i === plan.sections.length - 1} onClick={() => move(i, 1)}>
                <ChevronDownIcon size={14} />
              </Button>
              <Button variant="ghost" size="sm" aria-label={`Remove ${s.section_name}`} disabled={disabled || plan.sections.length === 1} onClick={() => remove(i)}>
                <TrashIcon size={14} />
              </Button>
            </div>
            <div className="mt-2 grid gap-2 md:grid-cols-3">
              <div>
                <label htmlFor={`section-${i}-positive`} className={label}>
                  Section styles (soft, full, no drums…)
                </label>
                <StylesInput id={`section-${i}-positive`} value={s.positive_local_styles} disabled={disabled} onChange={(v) => setSection(i, { positive_local_styles: v })} />
              </div>
              <div>
                <label htmlFor={`section-${i}-negative`} className={label}>
                  Section styles to avoid
                </label>
                <StylesInput id={`section-${i}-negative`} value={s.negative_local_styles} disabled={disabled} onChange={(v) => setSection(i, { negative_local_styles: v })} />
              </div>
              <div>
                <label htmlFor={`section-${i}-lines`} className={label}>
                  Lyrics (one line per row)
                </label>
                <textarea
                  id={`section-${i}-lines`}
                  rows={2}
                  className={inputClass}
                  value={s.lines.join('\n')}
                  disabled={disabled}
                  onChange={(e) => setSection(i, { lines: e.target.value.split('\n').filter((l, j, all) => l.trim() !== '' || j < all.length - 1) })}
                />
              </div>
            </div>
          </li>
        ))}
      </ol>
      <div className="mt-3 flex flex-wrap items-center justify-between gap-2">
        <Button variant="secondary" size="sm" disabled={disabled || plan.sections.length >= MAX_SECTIONS} onClick={add}>
          <PlusIcon size={14} />
          Add a section
        </Button>
        <p className="text-xs text-gray-500" data-testid="plan-total">
          {plan.sections.length} sections · {formatTime(planDurationMs(plan) / 1000)} in all
        </p>
      </div>
      <p className="mt-2 text-xs text-gray-500">
        Lines are sung on the melody by a speech engine (a word per group of notes, at their pitch); a server without one refuses them.
      </p>
    </section>
  );
}
