import { useId, useState } from 'react';
import { displayDialogueText, hasAudioTags, type DialogueLine } from '@/lib/dialogue';

/**
 * A dialogue's lines, each with its speaker. When a line holds bracketed audio tags
 * ([laughs], [whispers]…), a "Hide tags" option appears, on by default (spec §5).
 */
export function DialogueLines({ lines, voiceName }: { lines: DialogueLine[]; voiceName?: (id: string) => string | undefined }) {
  const [hideTags, setHideTags] = useState(true);
  const id = useId();
  const tagged = lines.some((l) => hasAudioTags(l.text));
  return (
    <div data-testid="dialogue-lines">
      <ol className="space-y-0.5 text-sm text-gray-900 dark:text-gray-100">
        {lines.map((l, i) => (
          <li key={i} className="line-clamp-2">
            <span className="font-medium text-gray-600 dark:text-gray-400">
              {l.voice_name ?? voiceName?.(l.voice_id) ?? l.voice_id}:
            </span>{' '}
            {displayDialogueText(l.text, tagged && hideTags)}
          </li>
        ))}
      </ol>
      {tagged && (
        <label htmlFor={id} className="mt-1 inline-flex cursor-pointer items-center gap-1.5 text-xs text-gray-500">
          <input id={id} type="checkbox" checked={hideTags} onChange={(e) => setHideTags(e.target.checked)} />
          Hide tags
        </label>
      )}
    </div>
  );
}
