import { useEffect, useState, type ReactNode } from 'react';
import { cn } from '@/components/cn';
import { ChevronLeftIcon, ChevronRightIcon } from '@/components/icons';
import { offers, type Capabilities, type FeatureId } from '@/lib/capabilities';
import { TIMINGS } from '@/lib/constants';

export type SlideId = 'dubbing' | 'sound-effects' | 'reader' | 'voices' | 'speech-to-speech' | 'text-to-speech';

interface Slide {
  id: SlideId;
  title: string;
  text: string;
  gradient: string;
  art: ReactNode;
  extra?: ReactNode;
}

function Bars({ count = 28, seed = 1 }: { count?: number; seed?: number }) {
  return (
    <div className="flex h-24 items-center gap-1" aria-hidden="true">
      {Array.from({ length: count }, (_, i) => {
        const h = 20 + Math.abs(Math.sin((i + 1) * seed * 0.7)) * 80;
        return <span key={i} className="w-1.5 rounded-full bg-white/80" style={{ height: `${h}%` }} />;
      })}
    </div>
  );
}

function Card({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div className={cn('rounded-2xl bg-white/15 p-4 shadow-lg ring-1 ring-white/20 backdrop-blur', className)}>
      {children}
    </div>
  );
}

export const SLIDES: Slide[] = [
  {
    id: 'dubbing',
    title: 'Dubbing Studio',
    text: 'Translate and dub your videos into 29 languages while keeping the original voices.',
    gradient: 'from-indigo-600 via-violet-600 to-fuchsia-500',
    art: (
      <div className="grid gap-3">
        {['English', 'Spanish', 'Japanese'].map((lang, i) => (
          <Card key={lang} className="flex items-center gap-4">
            <span className="w-20 text-sm font-medium">{lang}</span>
            <Bars count={22} seed={i + 2} />
          </Card>
        ))}
      </div>
    ),
  },
  {
    id: 'sound-effects',
    title: 'Sound Effects',
    text: 'Describe a sound and get studio-quality effects in seconds.',
    gradient: 'from-amber-500 via-orange-500 to-rose-500',
    art: (
      <Card>
        <p className="mb-3 text-sm opacity-90">“Thunder rolling over a quiet mountain lake”</p>
        <Bars count={36} seed={5} />
      </Card>
    ),
  },
  {
    id: 'reader',
    title: 'Reader App',
    text: 'Listen to articles, PDFs and books on the go with lifelike voices.',
    gradient: 'from-emerald-500 via-teal-500 to-cyan-600',
    art: (
      <Card className="mx-auto w-48">
        <div className="mb-3 h-3 w-24 rounded bg-white/70" />
        <div className="mb-1.5 h-2 rounded bg-white/40" />
        <div className="mb-1.5 h-2 rounded bg-white/40" />
        <div className="mb-4 h-2 w-3/4 rounded bg-white/40" />
        <Bars count={16} seed={3} />
      </Card>
    ),
    extra: (
      <div className="mt-6 flex gap-3">
        <a
          href="https://apps.apple.com/"
          target="_blank"
          rel="noreferrer"
          className="rounded-lg bg-black/80 px-4 py-2 text-sm font-medium text-white hover:bg-black"
        >
          App Store
        </a>
        <a
          href="https://play.google.com/store"
          target="_blank"
          rel="noreferrer"
          className="rounded-lg bg-black/80 px-4 py-2 text-sm font-medium text-white hover:bg-black"
        >
          Google Play
        </a>
      </div>
    ),
  },
  {
    id: 'voices',
    title: 'Voices',
    text: 'Choose from natural premade voices in many languages, and tune each one to your text.',
    gradient: 'from-sky-500 via-blue-600 to-indigo-700',
    art: (
      <div className="grid grid-cols-2 gap-3">
        {['Aria', 'Roger', 'Sarah', 'Charlie'].map((name, i) => (
          <Card key={name} className="flex items-center gap-3">
            <span
              className="size-9 rounded-full bg-gradient-to-br from-white/90 to-white/30"
              style={{ filter: `hue-rotate(${i * 60}deg)` }}
            />
            <span className="text-sm font-medium">{name}</span>
          </Card>
        ))}
      </div>
    ),
  },
  {
    id: 'speech-to-speech',
    title: 'Speech to Speech',
    text: 'Transform your voice into another while keeping emotion, timing and delivery.',
    gradient: 'from-rose-500 via-pink-600 to-purple-700',
    art: (
      <div className="grid gap-3">
        <Card>
          <Bars count={30} seed={7} />
        </Card>
        <div className="text-center text-2xl" aria-hidden="true">
          ↓
        </div>
        <Card>
          <Bars count={30} seed={9} />
        </Card>
      </div>
    ),
  },
  {
    id: 'text-to-speech',
    title: 'Text to Speech',
    text: 'Turn text into lifelike speech in dozens of languages, ready in seconds.',
    gradient: 'from-gray-800 via-gray-900 to-black',
    art: (
      <Card>
        <p className="mb-4 text-sm leading-relaxed opacity-90">
          “The quick brown fox jumps over the lazy dog, and every word sounds just right.”
        </p>
        <Bars count={34} seed={11} />
      </Card>
    ),
  },
];

/** The server feature each slide shows; slides without one show features not built yet. */
const SLIDE_FEATURE: Partial<Record<SlideId, FeatureId>> = { 'text-to-speech': 'text_to_speech', voices: 'premade_voices' };

/**
 * The slides of features the server offers (GET /api/capabilities). Until it answers, only text
 * to speech, which every server has.
 */
export function offeredSlides(caps: Capabilities | undefined): Slide[] {
  return SLIDES.filter((s) => {
    const feature = SLIDE_FEATURE[s.id];
    if (!feature) return false;
    return caps ? offers(caps, feature) : s.id === 'text-to-speech';
  });
}

/** Picks the start slide: voices on sign-up; else one matching the redirect/promo query; else random. */
export function pickStartSlide(mode: 'sign-in' | 'sign-up' | 'other', hint?: string | null): number {
  if (mode === 'sign-up') return SLIDES.findIndex((s) => s.id === 'voices');
  if (hint) {
    const h = hint.toLowerCase();
    const match =
      h.includes('dub')
        ? 'dubbing'
        : h.includes('sound-effects')
          ? 'sound-effects'
          : h.includes('speech-to-speech')
            ? 'speech-to-speech'
            : h.includes('text-to-speech') || h.includes('speech-synthesis')
              ? 'text-to-speech'
              : h.includes('voice')
                ? 'voices'
                : h.includes('reader')
                  ? 'reader'
                  : null;
    if (match) return SLIDES.findIndex((s) => s.id === match);
  }
  return Math.floor(Math.random() * SLIDES.length);
}

interface AuthCarouselProps {
  startIndex?: number;
  intervalMs?: number;
  /** The slides to show (default all); the auth layout passes those the server offers. */
  slides?: Slide[];
}

/**
 * Auth carousel (spec §2): six slides advancing every 6000 ms, with previous
 * and next buttons; any manual use stops auto-advance.
 */
export function AuthCarousel({ startIndex = 0, intervalMs = TIMINGS.carouselMs, slides = SLIDES }: AuthCarouselProps) {
  const count = Math.max(1, slides.length);
  const [index, setIndexState] = useState(() => ((startIndex % count) + count) % count);
  // The list can change (capabilities arriving): stay in range.
  const current = index % count;
  const [auto, setAuto] = useState(true);

  useEffect(() => {
    if (!auto) return;
    const timer = setInterval(() => setIndexState((i) => (i + 1) % count), intervalMs);
    return () => clearInterval(timer);
  }, [auto, intervalMs, count]);

  const go = (next: number) => {
    setAuto(false);
    setIndexState(((next % count) + count) % count);
  };

  return (
    <section
      aria-roledescription="carousel"
      aria-label="Product highlights"
      className="relative flex h-full min-h-[32rem] flex-col overflow-hidden rounded-3xl text-white"
      data-auto={auto}
    >
      {slides.map((slide, i) => (
        <div
          key={slide.id}
          role="group"
          aria-roledescription="slide"
          aria-label={`${i + 1} of ${slides.length}: ${slide.title}`}
          hidden={i !== current}
          data-slide={slide.id}
          className={cn(
            'absolute inset-0 flex flex-col justify-between bg-gradient-to-br p-10 animate-fade-in',
            slide.gradient,
          )}
        >
          <div className="flex flex-1 items-center justify-center">
            <div className="w-full max-w-md">{slide.art}</div>
          </div>
          <div className="max-w-lg pb-14">
            <h2 className="text-3xl font-semibold tracking-tight">{slide.title}</h2>
            <p className="mt-3 text-base text-white/85">{slide.text}</p>
            {slide.extra}
          </div>
        </div>
      ))}
      <div className="absolute right-8 bottom-8 left-10 flex items-center justify-between">
        <div className="flex gap-1.5">
          {slides.map((slide, i) => (
            <button
              key={slide.id}
              type="button"
              onClick={() => go(i)}
              aria-label={`Go to slide ${i + 1}: ${slide.title}`}
              aria-current={i === current ? 'true' : undefined}
              className={cn(
                'h-1.5 cursor-pointer rounded-full transition-all',
                i === current ? 'w-6 bg-white' : 'w-1.5 bg-white/50 hover:bg-white/80',
              )}
            />
          ))}
        </div>
        <div className="flex gap-2">
          <button
            type="button"
            onClick={() => go(current - 1)}
            aria-label="Previous slide"
            className="flex size-10 cursor-pointer items-center justify-center rounded-full bg-white/20 hover:bg-white/30"
          >
            <ChevronLeftIcon />
          </button>
          <button
            type="button"
            onClick={() => go(current + 1)}
            aria-label="Next slide"
            className="flex size-10 cursor-pointer items-center justify-center rounded-full bg-white/20 hover:bg-white/30"
          >
            <ChevronRightIcon />
          </button>
        </div>
      </div>
    </section>
  );
}
