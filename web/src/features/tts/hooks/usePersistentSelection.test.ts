import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { resolveSelection, usePersistentSelection } from './usePersistentSelection';

describe('resolveSelection', () => {
  it('prefers the stored id, then the preferred default, then the first available', () => {
    expect(resolveSelection('b', ['a', 'b'], 'a')).toBe('b');
    expect(resolveSelection('gone', ['a', 'eleven_multilingual_v2'], 'eleven_multilingual_v2')).toBe('eleven_multilingual_v2');
    expect(resolveSelection(null, ['a', 'c'], 'eleven_multilingual_v2')).toBe('a');
    expect(resolveSelection(null, [], 'x')).toBeNull();
    expect(resolveSelection('b', undefined)).toBe('b');
  });
});

describe('usePersistentSelection', () => {
  it('restores from localStorage and writes the new choice', () => {
    localStorage.setItem('k', 'b');
    const { result, rerender } = renderHook(({ ids }) => usePersistentSelection('k', ids), {
      initialProps: { ids: ['a', 'b', 'c'] as string[] },
    });
    expect(result.current[0]).toBe('b');
    act(() => result.current[1]('c'));
    expect(result.current[0]).toBe('c');
    expect(localStorage.getItem('k')).toBe('c');
    // A later list without the stored id falls back to the first.
    rerender({ ids: ['a'] });
    expect(result.current[0]).toBe('a');
  });
});
