import { useId } from 'react';
import { Button } from '@/components/Button';
import type { VoiceSettings } from '../api';

interface SliderProps {
  label: string;
  value: number;
  min: number;
  max: number;
  step: number;
  onChange: (v: number) => void;
  left: string;
  right: string;
  format?: (v: number) => string;
  disabled?: boolean;
}

function Slider({ label, value, min, max, step, onChange, left, right, format, disabled }: SliderProps) {
  const id = useId();
  return (
    <div className={disabled ? 'opacity-50' : undefined}>
      <div className="mb-1 flex items-center justify-between">
        <label htmlFor={id} className="text-sm font-medium text-gray-800 dark:text-gray-200">
          {label}
        </label>
        <output htmlFor={id} className="text-xs tabular-nums text-gray-500">
          {format ? format(value) : value.toFixed(2)}
        </output>
      </div>
      <input
        id={id}
        type="range"
        min={min}
        max={max}
        step={step}
        value={value}
        disabled={disabled}
        onChange={(e) => onChange(Number(e.target.value))}
        className="w-full cursor-pointer"
      />
      <div className="flex justify-between text-[11px] text-gray-500">
        <span>{left}</span>
        <span>{right}</span>
      </div>
    </div>
  );
}

interface VoiceSettingsPanelProps {
  value: VoiceSettings;
  onChange: (value: VoiceSettings) => void;
  onReset: () => void;
  canUseStyle?: boolean;
  canUseSpeakerBoost?: boolean;
  /** Text to dialogue takes stability only: the other settings are not shown. */
  stabilityOnly?: boolean;
}

export function VoiceSettingsPanel({
  value,
  onChange,
  onReset,
  canUseStyle = true,
  canUseSpeakerBoost = true,
  stabilityOnly = false,
}: VoiceSettingsPanelProps) {
  const boostId = useId();
  const set = <K extends keyof VoiceSettings>(key: K, v: VoiceSettings[K]) => onChange({ ...value, [key]: v });
  return (
    <fieldset className="space-y-4">
      <legend className="sr-only">Voice settings</legend>
      {!stabilityOnly && (
        <Slider
          label="Speed"
          value={value.speed}
          min={0.7}
          max={1.2}
          step={0.01}
          onChange={(v) => set('speed', v)}
          left="Slower"
          right="Faster"
          format={(v) => `${v.toFixed(2)}x`}
        />
      )}
      <Slider
        label="Stability"
        value={value.stability}
        min={0}
        max={1}
        step={0.01}
        onChange={(v) => set('stability', v)}
        left="More variable"
        right="More stable"
        format={(v) => `${Math.round(v * 100)}%`}
      />
      {stabilityOnly ? (
        <p className="text-xs text-gray-500 dark:text-gray-400">
          Text to dialogue takes stability only; each voice keeps its own other settings.
        </p>
      ) : (
        <>
          <Slider
            label="Similarity"
            value={value.similarity_boost}
            min={0}
            max={1}
            step={0.01}
            onChange={(v) => set('similarity_boost', v)}
            left="Low"
            right="High"
            format={(v) => `${Math.round(v * 100)}%`}
          />
          <Slider
            label="Style"
            value={value.style}
            min={0}
            max={1}
            step={0.01}
            onChange={(v) => set('style', v)}
            left="None"
            right="Exaggerated"
            format={(v) => `${Math.round(v * 100)}%`}
            disabled={!canUseStyle}
          />
          <div className="flex items-center justify-between gap-3">
            <label htmlFor={boostId} className="text-sm font-medium text-gray-800 dark:text-gray-200">
              Speaker boost
            </label>
            <button
              id={boostId}
              type="button"
              role="switch"
              aria-checked={value.use_speaker_boost}
              disabled={!canUseSpeakerBoost}
              onClick={() => set('use_speaker_boost', !value.use_speaker_boost)}
              className={
                'relative inline-flex h-6 w-11 shrink-0 cursor-pointer items-center rounded-full transition-colors disabled:cursor-not-allowed disabled:opacity-50 ' +
                (value.use_speaker_boost ? 'bg-gray-900 dark:bg-white' : 'bg-gray-300 dark:bg-gray-700')
              }
            >
              <span
                aria-hidden="true"
                className={
                  'inline-block size-5 rounded-full bg-white shadow transition-transform dark:bg-gray-900 ' +
                  (value.use_speaker_boost ? 'translate-x-5.5' : 'translate-x-0.5')
                }
              />
            </button>
          </div>
        </>
      )}
      <div className="flex justify-end">
        <Button variant="ghost" size="sm" onClick={onReset}>
          Reset to defaults
        </Button>
      </div>
    </fieldset>
  );
}
