// The voice library through the official ElevenLabs JS SDK: workspace A clones a voice and
// publishes it (POST /v1/voices/{id}/share: Timbre's route, called with fetch — the SDK has no
// publish call); workspace B finds it with voices.getShared (filters, paging), copies it with
// voices.share, finds it first with voices.findSimilarVoices for a new clip of the speaker,
// files it in a collection (the SDK's seven collection calls, and voices.search by collection);
// a withdrawn voice that was copied (copied_disabled) refuses voices.share with 403.
//
//   TIMBRE_BASE_URL=… TIMBRE_API_KEY=… OTHER_API_KEY=… SPEECH_FILE=… SPEECH_FILE_2=… node e2e/voicelibrary_sdk.mjs
//
// Normally run by voicelibrary_test.go.
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { CheckError, assert, check, finish } from './checks.mjs';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const { TIMBRE_BASE_URL: baseUrl, TIMBRE_API_KEY: keyA, OTHER_API_KEY: keyB, SPEECH_FILE: one, SPEECH_FILE_2: two } = process.env;
if (!baseUrl || !keyA || !keyB || !one || !two) {
  console.error('set TIMBRE_BASE_URL, TIMBRE_API_KEY, OTHER_API_KEY, SPEECH_FILE and SPEECH_FILE_2');
  process.exit(2);
}
const a = new ElevenLabsClient({ baseUrl, apiKey: keyA, maxRetries: 0, timeoutInSeconds: 60 });
const b = new ElevenLabsClient({ baseUrl, apiKey: keyB, maxRetries: 0, timeoutInSeconds: 60 });

const file = (path) => new File([readFileSync(path)], basename(path), { type: 'audio/mpeg' });
const publish = async (voiceId, method, body) => {
  const res = await fetch(`${baseUrl}/v1/voices/${voiceId}/share`, {
    method, headers: { 'xi-api-key': keyA, 'content-type': 'application/json' }, body: body && JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
};

let voiceId, owner;
await check('A: voices.ivc.create, then publish (POST /v1/voices/{id}/share)', async () => {
  const r = await a.voices.ivc.create({ name: 'Library narrator', files: [file(one)], labels: { gender: 'female', accent: 'american', use_case: 'narrative_story' } });
  voiceId = r.voiceId;
  const p = await publish(voiceId, 'POST', { description: 'Calm stories', notice_period: 14 });
  assert(p.status === 200 && p.json.status === 'enabled' && p.json.public_owner_id, JSON.stringify(p));
  owner = p.json.public_owner_id;
  const v = await a.voices.get(voiceId);
  assert(v.sharing?.status === 'enabled' && v.sharing.noticePeriod === 14, JSON.stringify(v.sharing));
  return { voiceId, owner };
});

await check('B: voices.getShared with filters and paging', async () => {
  const all = await b.voices.getShared({ pageSize: 10 });
  const v = all.voices.find((x) => x.voiceId === voiceId);
  assert(v && v.publicOwnerId === owner && v.gender === 'female' && v.category === 'cloned' && v.clonedByCount === 0 && v.previewUrl, JSON.stringify(all).slice(0, 400));
  const f = await b.voices.getShared({ gender: 'female', accent: 'american', useCases: 'narrative_story', minNoticePeriodDays: 7, search: 'calm' });
  assert(f.voices.length === 1 && f.voices[0].voiceId === voiceId && f.totalCount === 1, JSON.stringify(f).slice(0, 300));
  const none = await b.voices.getShared({ gender: 'male' });
  assert(none.voices.length === 0 && none.hasMore === false, JSON.stringify(none));
  return { total: all.totalCount };
});

let copyId;
await check('B: voices.share copies it (category cloned, sharing copied)', async () => {
  const r = await b.voices.share(owner, voiceId, { newName: 'Borrowed narrator' });
  copyId = r.voiceId;
  const v = await b.voices.get(copyId);
  assert(v.name === 'Borrowed narrator' && v.category === 'cloned' && v.sharing?.status === 'copied' && v.sharing.originalVoiceId === voiceId, JSON.stringify(v).slice(0, 400));
  const again = await b.voices.getShared({ search: 'calm' });
  assert(again.voices[0].clonedByCount === 1 && again.voices[0].isAddedByUser === true, JSON.stringify(again.voices[0]));
  return { copyId };
});

await check('B: voices.findSimilarVoices ranks the speaker first', async () => {
  const r = await b.voices.findSimilarVoices({ audioFile: file(two), topK: 3, similarityThreshold: 2 });
  assert(r.voices.length >= 1 && r.voices[0].voiceId === voiceId, JSON.stringify(r.voices.map((v) => v.voiceId)));
  return r.voices.map((v) => v.name);
});

await check('B: collections create, list, get, update, addVoice, search by collection, removeVoice, delete', async () => {
  const c = await b.voices.collections.create({ title: 'Narrators', icon: '🎙' });
  assert(c.collectionId && c.permissionOnResource === 'admin', JSON.stringify(c));
  const list = await b.voices.collections.list();
  assert(list.collections.some((x) => x.collectionId === c.collectionId), JSON.stringify(list));
  assert((await b.voices.collections.get(c.collectionId)).title === 'Narrators', 'get');
  assert((await b.voices.collections.update(c.collectionId, { title: 'Storytellers' })).title === 'Storytellers', 'update');
  const added = await b.voices.collections.addVoice(c.collectionId, copyId);
  assert(added.voiceId === copyId, JSON.stringify(added));
  const inIt = await b.voices.search({ collectionId: c.collectionId });
  assert(inIt.voices.length === 1 && inIt.voices[0].voiceId === copyId, JSON.stringify(inIt).slice(0, 300));
  await b.voices.collections.removeVoice(c.collectionId, copyId);
  assert((await b.voices.search({ collectionId: c.collectionId })).voices.length === 0, 'still in the collection');
  const gone = await b.voices.collections.delete(c.collectionId);
  assert(gone.collectionId === c.collectionId, JSON.stringify(gone));
});

await check('A withdraws it: copied_disabled; B voices.share → 403; the copy still speaks', async () => {
  const p = await publish(voiceId, 'DELETE');
  assert(p.status === 200 && p.json.status === 'copied_disabled', JSON.stringify(p));
  try {
    await b.voices.share(owner, voiceId, { newName: 'Again' });
    throw new CheckError('copied');
  } catch (err) {
    if (err instanceof CheckError) throw err;
    assert(err instanceof ElevenLabsError && err.statusCode === 403 && JSON.stringify(err.body).includes('voice_copying_disabled'), `${err}`);
  }
  const chunks = [];
  for await (const c of await b.textToSpeech.convert(copyId, { text: 'Still mine.' })) chunks.push(Buffer.from(c));
  assert(Buffer.concat(chunks).length > 1000, 'no audio');
});

finish('library');
