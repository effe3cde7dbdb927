import { Fragment } from 'react';

const URL_RE = /(https?:\/\/[^\s<>"')\]]+|\/app\/[^\s<>"')\]]+)/g;

/** Text with its URLs (absolute, or /app/… paths) turned into links. */
export function Linkified({ text }: { text: string }) {
  const parts = text.split(URL_RE);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <a key={i} href={part} className="break-all font-medium text-indigo-600 underline dark:text-indigo-400">
            {part}
          </a>
        ) : (
          <Fragment key={i}>{part}</Fragment>
        ),
      )}
    </>
  );
}
