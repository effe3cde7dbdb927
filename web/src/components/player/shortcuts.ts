import { PLAYER } from '@/lib/constants';
import type { PlayerStore } from '@/lib/player';

const TYPING_INPUT_TYPES = new Set([
  'text',
  'email',
  'password',
  'search',
  'url',
  'tel',
  'number',
  'date',
  'datetime-local',
  'month',
  'time',
  'week',
]);

/** True when the key event target is a place where the user types. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') {
    const type = (target as HTMLInputElement).type;
    return TYPING_INPUT_TYPES.has(type) || type === '';
  }
  return target.getAttribute('role') === 'textbox';
}

/** True when the target handles space/arrows itself (buttons, sliders, checkboxes, links). */
function handlesKeysItself(target: EventTarget | null, key: 'space' | 'arrow'): boolean {
  if (!(target instanceof HTMLElement)) return false;
  const tag = target.tagName;
  const role = target.getAttribute('role');
  if (tag === 'INPUT') return true; // range, checkbox, radio...
  if (role === 'slider' || role === 'radio' || role === 'tab' || role === 'menuitem' || role === 'option') return true;
  if (key === 'space') return tag === 'BUTTON' || tag === 'A' || role === 'button' || role === 'checkbox' || role === 'switch';
  return false;
}

/**
 * Player keyboard shortcuts (spec §9): space toggles play/pause; left/right
 * arrows skip 3 s, not with Ctrl or Meta; nothing while typing.
 */
export function handlePlayerKeyDown(event: KeyboardEvent, store: PlayerStore): boolean {
  if (!store.getState().item || event.defaultPrevented) return false;
  if (isTypingTarget(event.target)) return false;
  if (event.key === ' ' || event.code === 'Space') {
    if (event.ctrlKey || event.metaKey || event.altKey || handlesKeysItself(event.target, 'space')) return false;
    event.preventDefault();
    store.toggle();
    return true;
  }
  if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
    if (event.ctrlKey || event.metaKey || handlesKeysItself(event.target, 'arrow')) return false;
    event.preventDefault();
    store.skip(event.key === 'ArrowLeft' ? -PLAYER.arrowSkipSeconds : PLAYER.arrowSkipSeconds);
    return true;
  }
  return false;
}
