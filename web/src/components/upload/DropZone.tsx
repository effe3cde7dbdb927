import { useRef, useState, type DragEvent, type ReactNode } from 'react';
import { Button } from '@/components/Button';
import { cn } from '@/components/cn';

/**
 * A place to drop a file, with a "Choose a file" button for the picker and room for more
 * (actions: e.g. a Record button; children: below them). Hands each file to onFile; the same
 * file can be chosen twice in a row. Disabled, it takes nothing.
 */
export function DropZone({
  accept,
  disabled,
  onFile,
  title = 'Drop an audio or video file here',
  hint,
  actions,
  children,
  testId,
  inputTestId,
  className,
}: {
  accept: string;
  disabled?: boolean;
  onFile: (file: File) => void;
  title?: ReactNode;
  hint?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
  testId?: string;
  inputTestId?: string;
  className?: string;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const file = e.dataTransfer.files[0];
    if (file && !disabled) onFile(file);
  };
  return (
    <div
      data-testid={testId}
      onDragOver={(e) => {
        e.preventDefault();
        if (!disabled) setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      className={cn(
        'flex flex-col items-center justify-center gap-3 rounded-2xl border-2 border-dashed p-6 text-center transition-colors',
        dragging ? 'border-gray-900 bg-gray-50 dark:border-white dark:bg-gray-900' : 'border-gray-300 dark:border-gray-700',
        disabled && 'opacity-60',
        className,
      )}
    >
      <p className="text-sm font-medium">{title}</p>
      {hint && <p className="text-xs text-gray-500">{hint}</p>}
      <div className="flex flex-wrap items-center justify-center gap-2">
        <Button variant="outline" size="sm" onClick={() => input.current?.click()} disabled={disabled}>
          Choose a file
        </Button>
        {actions}
      </div>
      <input
        ref={input}
        type="file"
        accept={accept}
        className="sr-only"
        aria-label="Audio file"
        data-testid={inputTestId}
        disabled={disabled}
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = ''; // the same file may be chosen again
          if (file) onFile(file);
        }}
      />
      {children}
    </div>
  );
}
