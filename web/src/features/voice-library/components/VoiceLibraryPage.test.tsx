import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { libraryQuery } from '../api';
import { checkShare } from './dialogs';
import { VoiceLibraryPage, shareDefaults } from './VoiceLibraryPage';

const libVoice = (id: string, name: string, gender: string, added = false) => ({
  public_owner_id: 'owner1',
  voice_id: id,
  date_unix: 1,
  name,
  accent: 'british',
  gender,
  age: 'young',
  descriptive: 'calm',
  use_case: 'narrative_story',
  category: 'cloned',
  language: 'en',
  description: `${name} reads stories`,
  preview_url: `/api/voices/${id}/preview.mp3`,
  usage_character_count_1y: 0,
  usage_character_count_7d: 0,
  play_api_usage_character_count_1y: 0,
  cloned_by_count: added ? 1 : 0,
  free_users_allowed: true,
  live_moderation_enabled: false,
  featured: false,
  is_added_by_user: added,
});

const myVoice = (id: string, name: string, sharing: object | null = null) => ({ voice_id: id, name, category: 'cloned', description: '', labels: {}, sharing });

function server() {
  let library = [libVoice('L1', 'Narrator', 'male'), libVoice('L2', 'Host', 'female')];
  let mine = [myVoice('m1', 'My clone')];
  const collections: Array<{ collection_id: string; title: string; icon: string; permission_on_resource: string }> = [];
  return mockFetch({
    'GET /v1/shared-voices': ({ url }) => {
      const g = url.searchParams.get('gender');
      const voices = library.filter((v) => !g || v.gender === g);
      return jsonResponse({ voices, has_more: false, total_count: voices.length, last_sort_id: null });
    },
    'POST /v1/voices/add/owner1/L1': ({ body }) => {
      const name = (body as { new_name: string }).new_name;
      library = library.map((v) => (v.voice_id === 'L1' ? libVoice('L1', 'Narrator', 'male', true) : v));
      mine = [...mine, myVoice('c1', name, { status: 'copied' })];
      return jsonResponse({ voice_id: 'c1' });
    },
    'GET /v2/voices': () => jsonResponse({ voices: mine, has_more: false, total_count: mine.length, next_page_token: null }),
    'GET /v1/voices/collections': () => jsonResponse({ collections }),
    'POST /v1/voices/collections': ({ body }) => {
      const c = { collection_id: 'k1', title: (body as { title: string }).title, icon: '🎙', permission_on_resource: 'admin' };
      collections.push(c);
      return jsonResponse(c);
    },
    'POST /v1/voices/collections/k1/voice/m1': () => jsonResponse({ collection_id: 'k1', voice_id: 'm1' }),
    'POST /v1/voices/m1/share': ({ body }) => jsonResponse({ status: (body as { enabled: boolean }).enabled ? 'enabled' : 'disabled' }),
  });
}

afterEach(() => vi.unstubAllGlobals());

describe('VoiceLibraryPage', () => {
  it('lists library voices with previews and filters them', async () => {
    const { calls } = server();
    renderWithProviders(<VoiceLibraryPage />);
    const rows = await screen.findAllByTestId('library-voice');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]).getByLabelText('Preview of Narrator').getAttribute('src')).toBe('/api/voices/L1/preview.mp3');
    await userEvent.selectOptions(screen.getByLabelText('Gender'), 'female');
    await waitFor(() => expect(screen.getAllByTestId('library-voice')).toHaveLength(1));
    expect(calls.some((c) => c.url.pathname === '/v1/shared-voices' && c.url.searchParams.get('gender') === 'female')).toBe(true);
  });

  it('adds a library voice under the name given in the dialog', async () => {
    const { calls } = server();
    const onChanged = vi.fn();
    renderWithProviders(<VoiceLibraryPage onChanged={onChanged} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Add Narrator' }));
    const name = screen.getByLabelText('Name');
    await userEvent.clear(name);
    expect(screen.getByRole('button', { name: 'Add voice' }).hasAttribute('disabled')).toBe(true);
    await userEvent.type(name, 'Story time');
    await userEvent.click(screen.getByRole('button', { name: 'Add voice' }));
    await waitFor(() => expect(onChanged).toHaveBeenCalled());
    const post = calls.find((c) => c.method === 'POST' && c.url.pathname === '/v1/voices/add/owner1/L1');
    expect(post?.body).toEqual({ new_name: 'Story time' });
    await waitFor(() => expect(screen.getByText('Added')).toBeTruthy());
    await waitFor(() => expect(screen.getAllByTestId('my-voice')).toHaveLength(2));
  });

  it('creates a collection, files a voice in it and shares a voice to the library', async () => {
    const { calls } = server();
    renderWithProviders(<VoiceLibraryPage />);
    await userEvent.type(await screen.findByLabelText('New collection'), 'Narrators');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await userEvent.selectOptions(await screen.findByLabelText('Collection for My clone'), 'k1');
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.url.pathname === '/v1/voices/collections/k1/voice/m1')).toBe(true));
    await userEvent.click(screen.getByRole('button', { name: 'Share to library' }));
    await userEvent.type(screen.getByLabelText('Description'), 'My calm voice');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.some((c) => c.url.pathname === '/v1/voices/m1/share')).toBe(true));
    const share = calls.find((c) => c.url.pathname === '/v1/voices/m1/share');
    expect(share?.body).toMatchObject({ enabled: true, description: 'My calm voice', free_users_allowed: true, notice_period: 0 });
  });

  it('validates sharing settings and builds queries as the server expects', () => {
    expect(checkShare({ notice_period: -1 })).toMatch(/notice period/);
    expect(checkShare({ description: 'x'.repeat(1001) })).toMatch(/description/);
    expect(checkShare({ notice_period: 30, description: 'ok' })).toBeUndefined();
    expect(libraryQuery({ search: '', gender: 'male', use_cases: [], page: 0 })).toEqual({ gender: 'male', page: 0 });
    expect(shareDefaults(myVoice('x', 'X', { status: 'disabled', description: 'd', free_users_allowed: false, live_moderation_enabled: true, notice_period: 7 }) as never)).toEqual({
      enabled: false,
      description: 'd',
      free_users_allowed: false,
      live_moderation_enabled: true,
      notice_period: 7,
    });
  });
});
