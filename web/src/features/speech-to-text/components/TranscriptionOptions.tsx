import { useId, type ReactNode } from 'react';
import { FieldError, inputClass, Select, TextArea } from '@/components/Field';
import { cn } from '@/components/cn';
import {
  ENTITY_CHOICES,
  settingsProblems,
  type MultichannelStyle,
  type RedactionMode,
  type TranscriptionSettings,
} from '../api/model';

function Check({
  label,
  help,
  checked,
  disabled,
  onChange,
}: {
  label: string;
  help: ReactNode;
  checked: boolean;
  disabled?: boolean;
  onChange: (v: boolean) => void;
}) {
  const id = useId();
  return (
    <div className={cn('flex gap-2', disabled && 'opacity-60')}>
      <input
        id={id}
        type="checkbox"
        className="mt-0.5 size-4 shrink-0 cursor-pointer accent-gray-900 dark:accent-white"
        checked={checked}
        disabled={disabled}
        aria-describedby={`${id}-help`}
        onChange={(e) => onChange(e.target.checked)}
      />
      <div>
        <label htmlFor={id} className="text-sm font-medium">
          {label}
        </label>
        <p id={`${id}-help`} className="text-xs text-gray-500 dark:text-gray-400">
          {help}
        </p>
      </div>
    </div>
  );
}

function Labelled({ label, help, children, error }: { label: string; help: ReactNode; children: (id: string, describedBy: string) => ReactNode; error?: string }) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <div className="mt-1">{children(id, `${id}-help`)}</div>
      {error ? (
        <FieldError id={`${id}-help`}>{error}</FieldError>
      ) : (
        <p id={`${id}-help`} className="mt-1 text-xs text-gray-500 dark:text-gray-400">
          {help}
        </p>
      )}
    </div>
  );
}

/**
 * The transcription's options beside the file: language, speakers (diarization, their number,
 * agent/customer roles), channels, entities (and their redaction) and keyterms. Options that
 * cannot go together are disabled, as the API would refuse them.
 */
export function TranscriptionOptions({
  value,
  onChange,
  disabled,
}: {
  value: TranscriptionSettings;
  onChange: (v: TranscriptionSettings) => void;
  disabled?: boolean;
}) {
  const set = (patch: Partial<TranscriptionSettings>) => onChange({ ...value, ...patch });
  const problems = settingsProblems(value);
  const combined = value.multiChannel && value.multichannelStyle === 'combined';
  return (
    <fieldset disabled={disabled} className="space-y-3 text-left" aria-label="Transcription options">
      <Labelled label="Language" help="Detected from the audio when not chosen.">
        {(id, help) => (
          <Select id={id} aria-describedby={help} value={value.languageCode} onChange={(e) => set({ languageCode: e.target.value })}>
            <option value="">Detect</option>
            <option value="en">English</option>
          </Select>
        )}
      </Labelled>

      <Check
        label="Each channel is a speaker"
        help="For calls recorded with one person per channel (up to 5): each channel is transcribed on its own and billed in full."
        checked={value.multiChannel}
        onChange={(multiChannel) => set({ multiChannel })}
      />
      {value.multiChannel && (
        <Labelled label="Channels in the result" help="Separate: one transcript per channel. Combined: one transcript in time order.">
          {(id, help) => (
            <Select
              id={id}
              aria-describedby={help}
              value={value.multichannelStyle}
              onChange={(e) => set({ multichannelStyle: e.target.value as MultichannelStyle })}
            >
              <option value="separate">Separate</option>
              <option value="combined">Combined</option>
            </Select>
          )}
        </Labelled>
      )}

      <Check
        label="Tell speakers apart"
        help={value.multiChannel ? 'Not with channels as speakers: each channel is already one speaker.' : 'Labels who speaks when (diarization).'}
        checked={value.diarize && !value.multiChannel}
        disabled={value.multiChannel}
        onChange={(diarize) => set({ diarize, detectSpeakerRoles: diarize && value.detectSpeakerRoles })}
      />
      {value.diarize && !value.multiChannel && (
        <div className="space-y-3 border-l-2 border-gray-200 pl-3 dark:border-gray-800">
          <Labelled label="Number of speakers" help="Leave empty to let it find out (1 to 32)." error={problems.numSpeakers}>
            {(id, help) => (
              <input
                id={id}
                aria-describedby={help}
                aria-invalid={problems.numSpeakers ? true : undefined}
                inputMode="numeric"
                placeholder="Any"
                value={value.numSpeakers}
                onChange={(e) => set({ numSpeakers: e.target.value })}
                className={cn(inputClass, 'w-24')}
              />
            )}
          </Labelled>
        </div>
      )}
      <Check
        label="Agent and customer"
        help={
          value.diarize && !value.multiChannel
            ? 'Names the speakers of a support call “Agent” and “Customer” (+10 % of the cost).'
            : 'Needs “Tell speakers apart”: it names the speakers found.'
        }
        checked={value.detectSpeakerRoles && value.diarize && !value.multiChannel}
        disabled={!value.diarize || value.multiChannel}
        onChange={(detectSpeakerRoles) => set({ detectSpeakerRoles })}
      />

      <Labelled
        label="Find entities"
        help={
          combined
            ? 'Not with combined channels: choose separate channels to find entities.'
            : 'Card numbers, emails, phone numbers, names… are listed with the transcript (+30 % of the cost).'
        }
      >
        {(id, help) => (
          <Select
            id={id}
            aria-describedby={help}
            value={combined ? '' : value.entityDetection}
            disabled={combined}
            onChange={(e) => set({ entityDetection: e.target.value, redact: e.target.value !== '' && value.redact })}
          >
            {ENTITY_CHOICES.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </Select>
        )}
      </Labelled>
      {value.entityDetection && !combined && (
        <div className="space-y-3 border-l-2 border-gray-200 pl-3 dark:border-gray-800">
          <Check
            label="Redact them"
            help="Replaces what is found in the text by a marker (+30 % more); the entities are then not listed."
            checked={value.redact}
            onChange={(redact) => set({ redact })}
          />
          {value.redact && (
            <Labelled label="Marker" help="What stands in place of each entity.">
              {(id, help) => (
                <Select
                  id={id}
                  aria-describedby={help}
                  value={value.redactionMode}
                  onChange={(e) => set({ redactionMode: e.target.value as RedactionMode })}
                >
                  <option value="enumerated_entity_type">{'{CREDIT_CARD_0}, {CREDIT_CARD_1}, …'}</option>
                  <option value="entity_type">{'{CREDIT_CARD}'}</option>
                  <option value="redacted">{'{REDACTED}'}</option>
                </Select>
              )}
            </Labelled>
          )}
        </div>
      )}

      <Labelled
        label="Keyterms"
        help="Names and terms the audio contains, one per line: recognition favours them (each under 50 characters, up to 5 words)."
        error={problems.keyterms}
      >
        {(id, help) => (
          <TextArea
            id={id}
            aria-describedby={help}
            aria-invalid={problems.keyterms ? true : undefined}
            rows={2}
            value={value.keyterms}
            placeholder={'Timbre\nspeech synthesis'}
            onChange={(e) => set({ keyterms: e.target.value })}
          />
        )}
      </Labelled>
    </fieldset>
  );
}
