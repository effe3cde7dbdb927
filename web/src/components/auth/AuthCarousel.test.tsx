import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthCarousel, offeredSlides, pickStartSlide, SLIDES } from './AuthCarousel';

const activeTitle = () => screen.getByRole('heading', { level: 2 }).textContent;

describe('auth carousel', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('has six slides', () => {
    expect(SLIDES).toHaveLength(6);
    expect(SLIDES.map((s) => s.id)).toEqual(
      expect.arrayContaining(['dubbing', 'sound-effects', 'reader', 'voices', 'speech-to-speech']),
    );
  });

  it('advances every 6000 ms and wraps around', () => {
    render(<AuthCarousel startIndex={0} />);
    expect(activeTitle()).toBe(SLIDES[0]!.title);
    act(() => vi.advanceTimersByTime(5999));
    expect(activeTitle()).toBe(SLIDES[0]!.title);
    act(() => vi.advanceTimersByTime(1));
    expect(activeTitle()).toBe(SLIDES[1]!.title);
    act(() => vi.advanceTimersByTime(6000 * 5));
    expect(activeTitle()).toBe(SLIDES[0]!.title);
  });

  it('stops auto-advance after manual next/previous', () => {
    render(<AuthCarousel startIndex={2} />);
    fireEvent.click(screen.getByRole('button', { name: 'Next slide' }));
    expect(activeTitle()).toBe(SLIDES[3]!.title);
    act(() => vi.advanceTimersByTime(60_000));
    expect(activeTitle()).toBe(SLIDES[3]!.title);
    fireEvent.click(screen.getByRole('button', { name: 'Previous slide' }));
    fireEvent.click(screen.getByRole('button', { name: 'Previous slide' }));
    expect(activeTitle()).toBe(SLIDES[1]!.title);
    act(() => vi.advanceTimersByTime(60_000));
    expect(activeTitle()).toBe(SLIDES[1]!.title);
  });

  it('previous from the first slide wraps to the last', () => {
    render(<AuthCarousel startIndex={0} />);
    fireEvent.click(screen.getByRole('button', { name: 'Previous slide' }));
    expect(activeTitle()).toBe(SLIDES[5]!.title);
  });

  it('the reader slide links to the app stores', () => {
    render(<AuthCarousel startIndex={SLIDES.findIndex((s) => s.id === 'reader')} />);
    expect(screen.getByRole('link', { name: 'App Store' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Google Play' })).toBeInTheDocument();
  });

  it('starts on voices for sign-up, on a matching slide for a redirect, else random', () => {
    const voices = SLIDES.findIndex((s) => s.id === 'voices');
    expect(pickStartSlide('sign-up')).toBe(voices);
    expect(pickStartSlide('sign-in', '/app/dubbing')).toBe(SLIDES.findIndex((s) => s.id === 'dubbing'));
    vi.spyOn(Math, 'random').mockReturnValue(0.99);
    expect(pickStartSlide('sign-in')).toBe(5);
  });
  it('shows only the features the server offers', () => {
    const caps = (ids: string[]) => ({
      features: ids.map((id) => ({ id, name: id, description: '' })),
      legal: { terms_url: '/terms', privacy_url: '/privacy' },
    });
    expect(offeredSlides(caps(['text_to_speech', 'premade_voices', 'api_keys'])).map((s) => s.id)).toEqual([
      'voices',
      'text-to-speech',
    ]);
    expect(offeredSlides(caps(['text_to_speech'])).map((s) => s.id)).toEqual(['text-to-speech']);
    // Before the server answers: text to speech only, never dubbing, sound effects or the reader.
    expect(offeredSlides(undefined).map((s) => s.id)).toEqual(['text-to-speech']);
    render(<AuthCarousel slides={offeredSlides(caps(['text_to_speech', 'premade_voices']))} />);
    expect(screen.getAllByRole('group', { hidden: true })).toHaveLength(2);
    expect(screen.queryByText('Dubbing Studio')).toBeNull();
  });
});
