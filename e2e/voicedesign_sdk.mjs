// Voice design through the official ElevenLabs JS SDK: textToVoice.design and createPreviews (three
// previews each, mp3 in base64, repeatable by seed), textToVoice.preview.stream, textToVoice.create
// (the preview saved as a voice), textToVoice.remix of that voice, text to speech with it, and the
// SDK's 422 for a description under 20 characters.
//
//   TIMBRE_BASE_URL=http://127.0.0.1:8080 TIMBRE_API_KEY=sk_… node e2e/voicedesign_sdk.mjs
//
// Prints one JSON line per check and exits 1 when any fails. Normally run by voicedesign_test.go.
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { assert, check, finish, isMp3, bytesOf } from './checks.mjs';

const baseUrl = process.env.TIMBRE_BASE_URL;
const apiKey = process.env.TIMBRE_API_KEY;
if (!baseUrl || !apiKey) {
  console.error('set TIMBRE_BASE_URL and TIMBRE_API_KEY');
  process.exit(2);
}
// maxRetries 0: a 5xx must show up as a failure here, not be hidden by the SDK's retries.
const client = new ElevenLabsClient({ baseUrl, apiKey, maxRetries: 0, timeoutInSeconds: 60 });

function assertPreviews(out, what) {
  assert(out.previews.length === 3, `${what}: ${out.previews.length} previews`);
  assert(out.text.length >= 100, `${what}: text ${JSON.stringify(out.text)}`);
  for (const p of out.previews) {
    assert(p.generatedVoiceId && p.mediaType === 'audio/mpeg' && p.language === 'en', `${what}: preview ${JSON.stringify({ ...p, audioBase64: undefined })}`);
    assert(isMp3(Buffer.from(p.audioBase64, 'base64')), `${what}: preview audio is not mp3`);
    assert(p.durationSecs > 3, `${what}: ${p.durationSecs} s`);
  }
}

const description = 'A deep elderly male voice, slow and calm, with an American accent';
let designed;
let voiceId;

await check('textToVoice.design', async () => {
  designed = await client.textToVoice.design({ voiceDescription: description, autoGenerateText: true, seed: 7, outputFormat: 'mp3_22050_32' });
  assertPreviews(designed, 'design');
  return { durations: designed.previews.map((p) => p.durationSecs) };
});

await check('textToVoice.createPreviews (same seed, same voices)', async () => {
  const again = await client.textToVoice.createPreviews({ voiceDescription: description, autoGenerateText: true, seed: 7, outputFormat: 'mp3_22050_32' });
  assertPreviews(again, 'createPreviews');
  assert(
    again.previews.every((p, i) => p.durationSecs === designed.previews[i].durationSecs),
    `durations ${again.previews.map((p) => p.durationSecs)} vs ${designed.previews.map((p) => p.durationSecs)}`,
  );
});

await check('textToVoice.preview.stream', async () => {
  const buf = await bytesOf(await client.textToVoice.preview.stream(designed.previews[0].generatedVoiceId));
  assert(isMp3(buf) && buf.length > 10_000, `stream: ${buf.length} bytes`);
  return { bytes: buf.length };
});

await check('textToVoice.create', async () => {
  const v = await client.textToVoice.create({
    voiceName: 'Designed Tom',
    voiceDescription: description,
    generatedVoiceId: designed.previews[1].generatedVoiceId,
    labels: { use_case: 'narration' },
  });
  assert(v.voiceId && v.name === 'Designed Tom' && v.category === 'generated', `voice ${JSON.stringify(v)}`);
  assert(v.labels.gender === 'male' && v.labels.age === 'old' && v.labels.use_case === 'narration', `labels ${JSON.stringify(v.labels)}`);
  voiceId = v.voiceId;
  const got = await client.voices.get(voiceId);
  assert(got.name === 'Designed Tom', `voices.get: ${got.name}`);
});

await check('textToSpeech.convert with the designed voice', async () => {
  const buf = await bytesOf(await client.textToSpeech.convert(voiceId, { text: 'A designed voice reads this sentence.', modelId: 'eleven_multilingual_v2' }));
  assert(isMp3(buf), 'not mp3');
});

await check('textToVoice.remix', async () => {
  const out = await client.textToVoice.remix(voiceId, { voiceDescription: 'higher and faster', seed: 1, outputFormat: 'mp3_44100_128' });
  assertPreviews(out, 'remix');
});

await check('textToVoice.design refuses a short description (422)', async () => {
  try {
    await client.textToVoice.design({ voiceDescription: 'too short' });
  } catch (err) {
    assert(err instanceof ElevenLabsError && err.statusCode === 422, `got ${err}`);
    assert(JSON.stringify(err.body).includes('voice_description'), `422 body ${JSON.stringify(err.body)}`);
    return;
  }
  throw new Error('no error');
});

finish('voice design sdk');
