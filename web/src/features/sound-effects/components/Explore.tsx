import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { Button } from '@/components/Button';
import { TextField } from '@/components/Field';
import { cn } from '@/components/cn';
import { errorMessage, exploreCatalogue, exploreQueryKey, type ExplorePrompt } from '../api';

const chip = 'rounded-full border px-3 py-1 text-xs font-medium';

/**
 * The curated prompts: categories (/explore/category/:categoryId), search (/explore/search?q=),
 * a preview of each (this engine's render of the prompt) and "Use this prompt", which opens the
 * generator filled in.
 */
export function Explore() {
  const { categoryId = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const search = params.get('q') ?? '';
  const [draft, setDraft] = useState(search);
  const [preview, setPreview] = useState<string | null>(null);
  const query = useQuery({
    queryKey: exploreQueryKey(categoryId, search),
    queryFn: () => exploreCatalogue(categoryId, search),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    const q = draft.trim();
    navigate(q ? `/app/sound-effects/explore/search?q=${encodeURIComponent(q)}` : '/app/sound-effects/explore');
  }

  function use(p: ExplorePrompt) {
    const q = new URLSearchParams({ prompt: p.text, duration: String(p.duration_seconds), loop: String(p.loop) });
    navigate(`/app/sound-effects/generate?${q.toString()}`);
  }

  const cats = query.data?.categories ?? [];
  const prompts = query.data?.prompts ?? [];
  return (
    <div>
      <form onSubmit={submit} role="search" className="flex gap-2">
        <TextField
          label="Search prompts"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder="thunder, footsteps, engine…"
          className="flex-1"
        />
        <Button type="submit" variant="secondary" className="self-end">
          Search
        </Button>
      </form>
      <nav aria-label="Categories" className="mt-4 flex flex-wrap gap-2">
        <Link
          to="/app/sound-effects/explore"
          className={cn(chip, !categoryId && !search ? 'border-gray-900 bg-gray-900 text-white dark:border-white dark:bg-white dark:text-gray-900' : 'border-gray-300 dark:border-gray-700')}
        >
          All
        </Link>
        {cats.map((c) => (
          <Link
            key={c.category_id}
            to={`/app/sound-effects/explore/category/${c.category_id}`}
            aria-current={c.category_id === categoryId ? 'page' : undefined}
            className={cn(
              chip,
              c.category_id === categoryId
                ? 'border-gray-900 bg-gray-900 text-white dark:border-white dark:bg-white dark:text-gray-900'
                : 'border-gray-300 dark:border-gray-700',
            )}
          >
            {c.name} ({c.count})
          </Link>
        ))}
      </nav>
      <p className="mt-3 text-xs text-gray-500">Previews are this server&rsquo;s procedural renders of each prompt, made on first play.</p>
      {query.isPending && <p className="mt-4 text-sm text-gray-500">Loading the catalogue…</p>}
      {query.isError && (
        <p role="alert" className="mt-4 text-sm text-red-700 dark:text-red-300">
          {errorMessage(query.error)}
        </p>
      )}
      {query.isSuccess && prompts.length === 0 && <p className="mt-4 text-sm text-gray-500">No prompt matches &ldquo;{search}&rdquo;.</p>}
      <ul aria-label="Prompts" className="mt-4 grid gap-3 sm:grid-cols-2">
        {prompts.map((p) => (
          <li key={p.prompt_id} data-testid="sfx-prompt" className="rounded-xl border border-gray-200 p-3 dark:border-gray-800">
            <p className="text-sm font-medium">{p.title}</p>
            <p className="text-sm text-gray-600 dark:text-gray-400">&ldquo;{p.text}&rdquo;</p>
            <p className="mt-1 text-xs text-gray-500">
              {p.duration_seconds} s{p.loop ? ' · loop' : ''} · {p.recipes.join(', ')}
            </p>
            <div className="mt-2 flex flex-wrap items-center gap-2">
              <Button variant="ghost" size="sm" onClick={() => setPreview(preview === p.prompt_id ? null : p.prompt_id)} aria-label={`Preview ${p.title}`}>
                {preview === p.prompt_id ? 'Hide preview' : 'Preview'}
              </Button>
              <Button variant="secondary" size="sm" onClick={() => use(p)} aria-label={`Use the prompt of ${p.title}`}>
                Use this prompt
              </Button>
            </div>
            {preview === p.prompt_id && <audio controls autoPlay src={p.preview_url} className="mt-2 w-full" aria-label={`Preview of ${p.title}`} />}
          </li>
        ))}
      </ul>
    </div>
  );
}
