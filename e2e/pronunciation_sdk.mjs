// Pronunciation dictionaries through the official ElevenLabs JS SDK: createFromFile (a PLS file),
// createFromRules, get, list, update, rules.add / rules.remove / rules.set (each a new version),
// download of an old and the latest version, text to speech with a locator, and the SDK's error
// for a DOCTYPE in the file.
//
//   TIMBRE_BASE_URL=http://127.0.0.1:8080 TIMBRE_API_KEY=sk_… node e2e/pronunciation_sdk.mjs
//
// Prints one JSON line per check and exits 1 when any fails. Normally run by pronunciation_test.go.
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { assert, check, finish, bytesOf } from './checks.mjs';

const baseUrl = process.env.TIMBRE_BASE_URL;
const apiKey = process.env.TIMBRE_API_KEY;
if (!baseUrl || !apiKey) {
  console.error('set TIMBRE_BASE_URL and TIMBRE_API_KEY');
  process.exit(2);
}
const client = new ElevenLabsClient({ baseUrl, apiKey, maxRetries: 0, timeoutInSeconds: 60 });

const pls = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>tomato</grapheme><phoneme>təˈmɑːtoʊ</phoneme></lexeme>
  <lexeme><grapheme>UN</grapheme><alias>United Nations</alias></lexeme>
</lexicon>`;

let fileDict, rulesDict, firstVersion;
await check('createFromFile', async () => {
  fileDict = await client.pronunciationDictionaries.createFromFile({ name: 'SDK lexicon', file: new File([pls], 'lexicon.pls', { type: 'application/pls+xml' }) });
  assert(fileDict.id && fileDict.versionId && fileDict.versionRulesNum === 2, JSON.stringify(fileDict));
  firstVersion = fileDict.versionId;
});
await check('createFromRules', async () => {
  rulesDict = await client.pronunciationDictionaries.createFromRules({
    name: 'SDK rules',
    rules: [
      { type: 'alias', stringToReplace: 'Thailand', caseSensitive: true, wordBoundaries: true, alias: 'tie-land' },
      { type: 'phoneme', stringToReplace: 'potato', phoneme: 'P AH0 T AA1 T OW0', alphabet: 'cmu-arpabet' },
    ],
  });
  assert(rulesDict.versionRulesNum === 2 && rulesDict.permissionOnResource === 'admin', JSON.stringify(rulesDict));
});
await check('get', async () => {
  const d = await client.pronunciationDictionaries.get(fileDict.id);
  assert(d.name === 'SDK lexicon' && d.rules.length === 2 && d.latestVersionId === firstVersion, JSON.stringify(d));
  const tomato = d.rules.find((r) => r.stringToReplace === 'tomato');
  assert(tomato?.type === 'phoneme' && tomato.alphabet === 'ipa', JSON.stringify(tomato));
});
await check('list', async () => {
  const page = await client.pronunciationDictionaries.list({ pageSize: 1, sort: 'name', sortDirection: 'ascending' });
  assert(page.pronunciationDictionaries.length === 1 && page.hasMore && page.nextCursor, JSON.stringify(page));
  const next = await client.pronunciationDictionaries.list({ pageSize: 1, sort: 'name', sortDirection: 'ascending', cursor: page.nextCursor });
  assert(next.pronunciationDictionaries[0].name === 'SDK rules' && !next.hasMore, JSON.stringify(next));
});
await check('rules.add', async () => {
  const r = await client.pronunciationDictionaries.rules.add(fileDict.id, { rules: [{ type: 'alias', stringToReplace: 'CEO', alias: 'chief executive officer' }] });
  assert(r.versionRulesNum === 3 && r.versionId !== firstVersion, JSON.stringify(r));
});
await check('rules.remove', async () => {
  const r = await client.pronunciationDictionaries.rules.remove(fileDict.id, { ruleStrings: ['UN'] });
  assert(r.versionRulesNum === 2, JSON.stringify(r));
});
await check('rules.set', async () => {
  const r = await client.pronunciationDictionaries.rules.set(rulesDict.id, { rules: [{ type: 'alias', stringToReplace: 'SQL', alias: 'sequel' }] });
  assert(r.versionRulesNum === 1, JSON.stringify(r));
});
await check('download', async () => {
  const old = (await bytesOf(await client.pronunciationDictionaries.download(fileDict.id, firstVersion))).toString('utf8');
  assert(old.includes('<grapheme>UN</grapheme>') && !old.includes('CEO'), old);
  const d = await client.pronunciationDictionaries.get(fileDict.id);
  const latest = (await bytesOf(await client.pronunciationDictionaries.download(fileDict.id, d.latestVersionId))).toString('utf8');
  assert(latest.includes('chief executive officer') && !latest.includes('<grapheme>UN</grapheme>'), latest);
});
await check('update', async () => {
  const d = await client.pronunciationDictionaries.update(rulesDict.id, { name: 'SDK rules renamed', archived: true });
  assert(d.name === 'SDK rules renamed' && d.archivedTimeUnix > 0, JSON.stringify(d));
});
await check('textToSpeech with locators', async () => {
  const audio = await bytesOf(
    await client.textToSpeech.convert('21m00Tcm4TlvDq8ikWAM', {
      text: 'The CEO likes tomato soup.',
      pronunciationDictionaryLocators: [{ pronunciationDictionaryId: fileDict.id }, { pronunciationDictionaryId: fileDict.id, versionId: firstVersion }],
    }),
  );
  assert(audio.length > 1000, `${audio.length} bytes`);
});
await check('DOCTYPE refused', async () => {
  try {
    await client.pronunciationDictionaries.createFromFile({
      name: 'bomb',
      file: new File(['<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "a">]><lexicon/>'], 'bomb.pls'),
    });
  } catch (err) {
    assert(err instanceof ElevenLabsError && err.statusCode === 422, String(err));
    return;
  }
  throw new Error('a DOCTYPE was accepted');
});

finish('pronunciation sdk');
