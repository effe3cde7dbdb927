// Music through the official ElevenLabs JS SDK: music.compositionPlan.create (a plan of the asked
// length), music.compose from a prompt and from the (edited) plan with a seed (the same bytes
// twice), music.stream, music.composeDetailed (the SDK's multipart parser: plan, song metadata,
// the audio and its file name, the song-id), lyrics sung, and the SDK's 422 for a bad section.
//
//   TIMBRE_BASE_URL=http://127.0.0.1:8080 TIMBRE_API_KEY=sk_… node e2e/music_sdk.mjs
//
// Prints one JSON line per check and exits 1 when any fails. Normally run by music_test.go.
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { assert, check, finish, isMp3 } from './checks.mjs';

const baseUrl = process.env.TIMBRE_BASE_URL;
const apiKey = process.env.TIMBRE_API_KEY;
if (!baseUrl || !apiKey) {
  console.error('set TIMBRE_BASE_URL and TIMBRE_API_KEY');
  process.exit(2);
}
// maxRetries 0: a 5xx must show up as a failure here, not be hidden by the SDK's retries.
const client = new ElevenLabsClient({ baseUrl, apiKey, maxRetries: 0, timeoutInSeconds: 60 });

async function collect(stream) {
  const chunks = [];
  for await (const c of stream) chunks.push(Buffer.from(c));
  return { bytes: Buffer.concat(chunks), chunks: chunks.length };
}

let plan;
await check('music.compositionPlan.create', async () => {
  plan = await client.music.compositionPlan.create({ prompt: 'A calm lo-fi tune in F major with electric piano', musicLengthMs: 8000 });
  assert(Array.isArray(plan.positiveGlobalStyles) && Array.isArray(plan.negativeGlobalStyles), `plan ${JSON.stringify(plan)}`);
  const total = plan.sections.reduce((n, s) => n + s.durationMs, 0);
  assert(total === 8000, `the sections last ${total} ms`);
  assert(plan.sections.every((s) => s.sectionName && Array.isArray(s.lines) && Array.isArray(s.positiveLocalStyles)), 'section keys');
  return { styles: plan.positiveGlobalStyles, sections: plan.sections.map((s) => s.sectionName) };
});

await check('music.compose from a prompt', async () => {
  const { data, rawResponse } = await client.music.compose({ prompt: 'upbeat rock, 128 bpm', musicLengthMs: 5000 }).withRawResponse();
  const { bytes } = await collect(data);
  assert(isMp3(bytes), 'not mp3');
  assert(rawResponse.headers.get('song-id'), 'no song-id header');
  return { bytes: bytes.length, songId: rawResponse.headers.get('song-id') };
});

await check('music.compose from an edited plan with a seed: the same bytes twice', async () => {
  assert(plan, 'no plan');
  const edited = { ...plan, positiveGlobalStyles: [...plan.positiveGlobalStyles, '96 bpm'] };
  const one = await collect(await client.music.compose({ compositionPlan: edited, seed: 11, outputFormat: 'mp3_44100_128' }));
  const two = await collect(await client.music.compose({ compositionPlan: edited, seed: 11, outputFormat: 'mp3_44100_128' }));
  assert(isMp3(one.bytes) && one.bytes.equals(two.bytes), `seeded songs differ (${one.bytes.length} vs ${two.bytes.length} bytes)`);
  return { bytes: one.bytes.length };
});

await check('music.stream', async () => {
  const { bytes, chunks } = await collect(await client.music.stream({ prompt: 'ambient drone', musicLengthMs: 6000 }));
  assert(isMp3(bytes), 'not mp3');
  return { bytes: bytes.length, chunks };
});

await check('music.composeDetailed (the SDK parses the multipart response)', async () => {
  const r = await client.music.composeDetailed({ prompt: 'a jazz tune in D minor', musicLengthMs: 4000 });
  assert(r.json?.compositionPlan?.sections?.length > 0, `plan ${JSON.stringify(r.json).slice(0, 300)}`);
  const m = r.json.songMetadata;
  assert(m && typeof m.title === 'string' && Array.isArray(m.genres) && m.genres.includes('jazz'), `metadata ${JSON.stringify(m)}`);
  assert(isMp3(r.audio), `audio is not mp3 (${r.audio.length} bytes)`);
  assert(r.filename.endsWith('.mp3') && r.songId, `filename ${r.filename}, song id ${r.songId}`);
  return { title: m.title, filename: r.filename, bytes: r.audio.length };
});

await check('music.compose with lyrics (sung by a speech engine on the melody)', async () => {
  assert(plan, 'no plan');
  const withLines = { ...plan, sections: plan.sections.map((s) => ({ ...s, lines: ['hold on to the feeling', 'let it rise'] })) };
  const { bytes } = await collect(await client.music.compose({ compositionPlan: withLines, seed: 3 }));
  assert(isMp3(bytes), 'not mp3');
  return { bytes: bytes.length };
});

await check('music.compose: a section of 1 s → 422 naming it', async () => {
  assert(plan, 'no plan');
  const bad = { ...plan, sections: plan.sections.map((s, i) => (i === 0 ? { ...s, durationMs: 1000 } : s)) };
  try {
    await collect(await client.music.compose({ compositionPlan: bad }));
  } catch (err) {
    assert(err instanceof ElevenLabsError && err.statusCode === 422, `error ${err?.message}`);
    const loc = err.body?.detail?.[0]?.loc ?? [];
    assert(loc.includes('duration_ms'), `loc ${JSON.stringify(loc)}`);
    return { loc };
  }
  throw new Error('a 1-second section was accepted');
});

finish('music sdk');
