import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearToasts, toast, useToasts } from './toast';
import { renderHook, act } from '@testing-library/react';

afterEach(() => {
  clearToasts();
  vi.useRealTimers();
});

describe('toasts', () => {
  it('keeps at most 3 and drops each after 5555 ms', () => {
    vi.useFakeTimers();
    const { result } = renderHook(() => useToasts());
    act(() => {
      toast('one');
      toast('two');
      toast('three');
      toast('four');
    });
    expect(result.current.map((t) => t.message)).toEqual(['two', 'three', 'four']);
    act(() => vi.advanceTimersByTime(5554));
    expect(result.current).toHaveLength(3);
    act(() => vi.advanceTimersByTime(1));
    expect(result.current).toHaveLength(0);
  });
});
