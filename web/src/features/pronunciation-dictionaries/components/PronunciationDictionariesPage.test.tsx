import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { ruleSummary, sampleSentence } from '../api';
import { PronunciationDictionariesPage } from './PronunciationDictionariesPage';

afterEach(() => vi.unstubAllGlobals());

type Rule = Record<string, unknown> & { string_to_replace: string };

/** The server's side: one dictionary whose rule changes make versions. */
function server() {
  let version = 1;
  let rules: Rule[] = [
    { type: 'alias', string_to_replace: 'CEO', alias: 'chief executive officer', case_sensitive: true, word_boundaries: true },
  ];
  let archived: number | null = null;
  const meta = () => ({
    id: 'dict1',
    name: 'Company words',
    latest_version_id: `ver${version}`,
    latest_version_rules_num: rules.length,
    permission_on_resource: 'admin',
    created_by: 'u1',
    creation_time_unix: 1700000000,
    archived_time_unix: archived,
    description: null,
  });
  const changed = () => ({ id: 'dict1', version_id: `ver${version}`, version_rules_num: rules.length });
  const mock = mockFetch({
    'GET /v1/pronunciation-dictionaries': () => jsonResponse({ pronunciation_dictionaries: [meta()], has_more: false, next_cursor: null }),
    'GET /v1/pronunciation-dictionaries/dict1': () => jsonResponse({ ...meta(), rules }),
    'GET /v1/voices': () => jsonResponse({ voices: [{ voice_id: 'voiceA', name: 'Rachel' }] }),
    'POST /v1/pronunciation-dictionaries/dict1/add-rules': ({ body }) => {
      const add = (body as { rules: Rule[] }).rules;
      rules = [...rules.filter((r) => !add.some((a) => a.string_to_replace === r.string_to_replace)), ...add];
      version++;
      return jsonResponse(changed());
    },
    'POST /v1/pronunciation-dictionaries/dict1/remove-rules': ({ body }) => {
      const strs = (body as { rule_strings: string[] }).rule_strings;
      rules = rules.filter((r) => !strs.includes(r.string_to_replace));
      version++;
      return jsonResponse(changed());
    },
    'PATCH /v1/pronunciation-dictionaries/dict1': ({ body }) => {
      archived = (body as { archived?: boolean }).archived ? 1700000100 : null;
      return jsonResponse(meta());
    },
    'POST /v1/text-to-speech/voiceA': () =>
      new Response(new Blob([new Uint8Array([0xff, 0xfb, 0x90, 0x00])], { type: 'audio/mpeg' }), {
        status: 200,
        headers: { 'Content-Type': 'audio/mpeg' },
      }),
    'GET /v1/pronunciation-dictionaries/dict1/ver1/download': () =>
      new Response('<lexicon/>', { status: 200, headers: { 'Content-Type': 'text/plain' } }),
    'POST /v1/pronunciation-dictionaries/add-from-rules': ({ body }) =>
      jsonResponse({
        id: 'dict2',
        name: (body as { name: string }).name,
        created_by: 'u1',
        creation_time_unix: 1700000200,
        version_id: 'v2-1',
        version_rules_num: 0,
        permission_on_resource: 'admin',
      }),
  });
  return mock;
}

describe('rule wording', () => {
  it('summarises aliases and phonemes', () => {
    expect(ruleSummary({ type: 'alias', string_to_replace: 'UN', alias: 'United Nations' })).toBe('→ “United Nations”');
    expect(ruleSummary({ type: 'phoneme', string_to_replace: 'tomato', phoneme: 'T AH0', alphabet: 'cmu-arpabet' })).toBe('/T AH0/ (CMU ARPAbet)');
    expect(sampleSentence('CEO')).toContain('CEO');
  });
});

describe('PronunciationDictionariesPage', () => {
  it('lists dictionaries, adds a phoneme rule as a new version, removes a rule, plays a rule through TTS', async () => {
    const { calls } = server();
    const user = userEvent.setup();
    const { player } = renderWithProviders(<PronunciationDictionariesPage />);
    const detail = await screen.findByTestId('dictionary-detail');
    expect(within(detail).getByText('CEO')).toBeInTheDocument();
    expect(screen.getByTestId('dictionary-version')).toHaveTextContent('Version ver1 · 1 rules');

    // A phoneme rule with its alphabet, case and word-boundary choices.
    const editor = screen.getByRole('form', { name: 'Add a rule' });
    await user.selectOptions(within(editor).getByLabelText('Rule type'), 'phoneme');
    await user.type(within(editor).getByLabelText('Word or phrase'), 'tomato');
    await user.type(within(editor).getByLabelText('Phonemes'), 'T AH0 M AA1 T OW0');
    await user.selectOptions(within(editor).getByLabelText('Alphabet'), 'cmu-arpabet');
    await user.click(within(editor).getByLabelText('Match case'));
    await user.click(within(editor).getByRole('button', { name: /Add rule/ }));
    expect(await screen.findByRole('status')).toHaveTextContent('Saved as version ver2 (2 rules)');
    const added = calls.find((c) => c.url.pathname.endsWith('/add-rules'));
    expect(added?.body).toEqual({
      rules: [{ type: 'phoneme', string_to_replace: 'tomato', phoneme: 'T AH0 M AA1 T OW0', alphabet: 'cmu-arpabet', case_sensitive: false, word_boundaries: true }],
    });
    await waitFor(() => expect(screen.getByTestId('dictionary-version')).toHaveTextContent('Version ver2 · 2 rules'));
    expect(screen.getByText('/T AH0 M AA1 T OW0/ (CMU ARPAbet)')).toBeInTheDocument();

    // Play speaks a sentence with the word through TTS with this dictionary's latest version.
    await user.click(screen.getByRole('button', { name: 'Play tomato' }));
    await waitFor(() => expect(player.getState().item?.title).toBe(sampleSentence('tomato')));
    const tts = calls.find((c) => c.url.pathname === '/v1/text-to-speech/voiceA');
    expect(tts?.body).toMatchObject({
      text: sampleSentence('tomato'),
      pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: 'dict1', version_id: 'ver2' }],
    });

    await user.click(screen.getByRole('button', { name: 'Remove CEO' }));
    expect(await screen.findByText(/Saved as version ver3 \(1 rules\)/)).toBeInTheDocument();
    await waitFor(() => expect(within(screen.getByTestId('dictionary-detail')).queryByText('CEO')).not.toBeInTheDocument());
  });

  it('archives, downloads the PLS and creates a dictionary', async () => {
    const { calls } = server();
    const saved: string[] = [];
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: () => 'blob:pls', revokeObjectURL: () => {} }));
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    const user = userEvent.setup();
    renderWithProviders(<PronunciationDictionariesPage />);
    await screen.findByTestId('dictionary-detail');
    await user.click(screen.getByRole('button', { name: /Download PLS/ }));
    await waitFor(() => expect(saved).toEqual(['Company words.pls']));
    click.mockRestore();

    await user.click(screen.getByRole('button', { name: 'Archive' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PATCH' && (c.body as { archived: boolean }).archived)).toBe(true));
    expect(await screen.findByRole('button', { name: 'Unarchive' })).toBeInTheDocument();

    await user.type(screen.getByLabelText('New dictionary'), 'Product names');
    await user.click(screen.getByRole('button', { name: /Create/ }));
    await waitFor(() =>
      expect(calls.find((c) => c.url.pathname === '/v1/pronunciation-dictionaries/add-from-rules')?.body).toEqual({ name: 'Product names', rules: [] }),
    );
  });
});
