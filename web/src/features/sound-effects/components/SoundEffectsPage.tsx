import { NavLink } from 'react-router';
import { cn } from '@/components/cn';
import { Explore } from './Explore';
import { Generator } from './Generator';
import { SoundHistory } from './SoundHistory';

export type SoundEffectsTab = 'generate' | 'history' | 'explore';

const TABS: Array<{ tab: SoundEffectsTab; to: string; label: string }> = [
  { tab: 'generate', to: '/app/sound-effects/generate', label: 'Generate' },
  { tab: 'explore', to: '/app/sound-effects/explore', label: 'Explore' },
  { tab: 'history', to: '/app/sound-effects/history', label: 'History' },
];

/**
 * /app/sound-effects: describe a sound and get four variations (generate), browse curated
 * prompts with previews (explore, explore/search, explore/category/:id), and the member's
 * generated sounds (history). onGenerated runs after each charged round (the app layer refreshes
 * the credits shown elsewhere).
 */
export function SoundEffectsPage({ tab, onGenerated }: { tab: SoundEffectsTab; onGenerated?: () => void }) {
  return (
    <div className="mx-auto max-w-5xl p-4 sm:p-8">
      <h1 className="text-2xl font-semibold tracking-tight">Sound Effects</h1>
      <p className="mt-1 max-w-3xl text-sm text-gray-600 dark:text-gray-400" data-testid="sfx-engine-note">
        Describe a sound and this server makes it. The engine is procedural, not a neural model: it reads the prompt for
        sources (rain, doors, engines, footsteps, birds…), their character (heavy, distant, metallic, low, fast…) and their
        order (&ldquo;a door creaks then slams&rdquo;), and synthesizes them from noise, oscillators, filters and a
        generated room reverb. Each response names the recipes it used.
      </p>
      <nav aria-label="Sound effects" className="mt-4 flex gap-1 border-b border-gray-200 dark:border-gray-800">
        {TABS.map((t) => (
          <NavLink
            key={t.tab}
            to={t.to}
            aria-current={t.tab === tab ? 'page' : undefined}
            className={cn(
              '-mb-px border-b-2 px-3 py-2 text-sm font-medium',
              t.tab === tab
                ? 'border-gray-900 text-gray-900 dark:border-white dark:text-white'
                : 'border-transparent text-gray-500 hover:text-gray-800 dark:hover:text-gray-200',
            )}
          >
            {t.label}
          </NavLink>
        ))}
      </nav>
      <div className="mt-6">
        {tab === 'generate' && <Generator onGenerated={onGenerated} />}
        {tab === 'explore' && <Explore />}
        {tab === 'history' && <SoundHistory />}
      </div>
    </div>
  );
}
