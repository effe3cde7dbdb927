import { client, unwrap, type Schemas } from '@/lib/api';

export type DictionaryMeta = Schemas['GetPronunciationDictionaryMetadataResponseModel'];
export type DictionaryWithRules = Schemas['GetPronunciationDictionaryWithRulesResponseModel'];
export type Rule = DictionaryWithRules['rules'][number];
export type RuleInput = Schemas['PronunciationDictionaryAliasRuleRequestModel'] | Schemas['PronunciationDictionaryPhonemeRuleRequestModel'];
export type Changed = Schemas['PronunciationDictionaryRulesResponseModel'];

// Under 'workspace' so switching workspaces (which resets every query but the session) refetches them.
export const dictionariesQueryKey = ['workspace', 'pronunciation-dictionaries'] as const;
export const dictionaryQueryKey = (id: string) => ['workspace', 'pronunciation-dictionaries', id] as const;

/** Every dictionary of the caller (archived ones too), newest first, reading all pages. */
export async function listDictionaries(): Promise<DictionaryMeta[]> {
  const out: DictionaryMeta[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await unwrap(
      client.GET('/v1/pronunciation-dictionaries', { params: { query: { page_size: 100, include_archived: true, cursor } } }),
    );
    out.push(...page.pronunciation_dictionaries);
    if (!page.has_more || !page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return out;
}

export const getDictionary = (id: string) =>
  unwrap(client.GET('/v1/pronunciation-dictionaries/{pronunciation_dictionary_id}', { params: { path: { pronunciation_dictionary_id: id } } }));

export const createFromRules = (name: string, rules: RuleInput[]) =>
  unwrap(client.POST('/v1/pronunciation-dictionaries/add-from-rules', { body: { name, rules } }));

/** Creates a dictionary from a W3C PLS lexicon file. */
export function createFromFile(name: string, file: File) {
  const form = new FormData();
  form.append('name', name);
  form.append('file', file, file.name);
  return unwrap(
    client.POST('/v1/pronunciation-dictionaries/add-from-file', {
      body: { name } as never,
      bodySerializer: () => form,
    }),
  );
}

const path = (id: string) => ({ params: { path: { pronunciation_dictionary_id: id } } });

export const addRules = (id: string, rules: RuleInput[]): Promise<Changed> =>
  unwrap(client.POST('/v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/add-rules', { ...path(id), body: { rules } }));

export const removeRules = (id: string, ruleStrings: string[]): Promise<Changed> =>
  unwrap(
    client.POST('/v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/remove-rules', { ...path(id), body: { rule_strings: ruleStrings } }),
  );

export const updateDictionary = (id: string, body: { name?: string; archived?: boolean }) =>
  unwrap(client.PATCH('/v1/pronunciation-dictionaries/{pronunciation_dictionary_id}', { ...path(id), body }));

/** A version of the dictionary as a PLS file. */
export const downloadVersion = (id: string, versionId: string): Promise<Blob> =>
  unwrap(
    client.GET('/v1/pronunciation-dictionaries/{dictionary_id}/{version_id}/download', {
      params: { path: { dictionary_id: id, version_id: versionId } },
      parseAs: 'blob',
    }),
  ) as Promise<Blob>;

export const listVoices = () => unwrap(client.GET('/v1/voices', {}));

/** A sentence with the rule's word in it, to hear the rule. */
export const sampleSentence = (word: string) => `Here is how ${word} sounds.`;

/**
 * Speaks the sample sentence through text to speech with the dictionary's version, so what is
 * heard is what the rule makes of the word (a real, charged TTS call).
 */
export async function speakSample(voiceId: string, word: string, dictionaryId: string, versionId: string): Promise<Blob> {
  return (await unwrap(
    client.POST('/v1/text-to-speech/{voice_id}', {
      params: { path: { voice_id: voiceId }, query: { output_format: 'mp3_44100_128' } },
      body: {
        text: sampleSentence(word),
        pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: dictionaryId, version_id: versionId }],
      },
      parseAs: 'blob',
      headers: { Accept: 'audio/*, application/json' },
    }),
  )) as Blob;
}

/** How a rule reads in the list. */
export function ruleSummary(r: Rule): string {
  if (r.type === 'alias') return `→ “${r.alias}”`;
  return `/${r.phoneme}/ (${r.alphabet === 'cmu-arpabet' ? 'CMU ARPAbet' : 'IPA'})`;
}
