// Instant voice cloning through the official ElevenLabs JS SDK: voices.ivc.create (two files,
// labels), voices.get (category cloned, samples with every required field), the sample's audio,
// text to speech with the clone, voices.update (adds a sample), sample deletion and voices.delete;
// a bad file is refused with a 422 naming files.
//
//   TIMBRE_BASE_URL=… TIMBRE_API_KEY=… SPEECH_FILE=speech.mp3 SPEECH_FILE_2=more.mp3 node e2e/ivc.mjs
//
// Normally run by ivc_test.go (which puts the workspace on a plan with instant cloning).
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { CheckError, assert, check, finish, bytesOf } from './checks.mjs';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const baseUrl = process.env.TIMBRE_BASE_URL;
const apiKey = process.env.TIMBRE_API_KEY;
const files = [process.env.SPEECH_FILE, process.env.SPEECH_FILE_2];
if (!baseUrl || !apiKey || files.some((f) => !f)) {
  console.error('set TIMBRE_BASE_URL, TIMBRE_API_KEY, SPEECH_FILE and SPEECH_FILE_2');
  process.exit(2);
}
const client = new ElevenLabsClient({ baseUrl, apiKey, maxRetries: 0, timeoutInSeconds: 60 });

const file = (path) => new File([readFileSync(path)], basename(path), { type: 'audio/mpeg' });

let voiceId;
await check('voices.ivc.create (two files, labels)', async () => {
  const r = await client.voices.ivc.create({
    name: 'SDK clone', files: files.map(file), description: 'Made by the SDK', labels: { accent: 'american' },
  });
  assert(r.voiceId && r.requiresVerification === false, JSON.stringify(r));
  voiceId = r.voiceId;
  return r;
});

let samples = [];
await check('voices.get: category cloned, samples', async () => {
  const v = await client.voices.get(voiceId);
  assert(v.category === 'cloned' && v.name === 'SDK clone' && v.labels?.accent === 'american', JSON.stringify(v).slice(0, 300));
  samples = v.samples ?? [];
  assert(samples.length === 2, `${samples.length} samples`);
  const want = createHash('sha256').update(readFileSync(files[0])).digest('hex');
  assert(samples[0].hash === want && samples[0].fileName === basename(files[0]) && samples[0].sizeBytes > 0 && samples[0].mimeType === 'audio/mpeg',
    JSON.stringify(samples[0]));
  return samples.map((s) => s.sampleId);
});

await check('voices.samples.audio.get: the uploaded bytes', async () => {
  const audio = await bytesOf(await client.voices.samples.audio.get(voiceId, samples[1].sampleId));
  assert(audio.equals(readFileSync(files[1])), `${audio.length} bytes differ from the upload`);
  return { bytes: audio.length };
});

await check('textToSpeech.convert with the clone', async () => {
  const audio = await bytesOf(await client.textToSpeech.convert(voiceId, { text: 'Hello from my cloned voice.', modelId: 'eleven_multilingual_v2' }));
  assert(audio.length > 2000, `${audio.length} bytes`);
  return { bytes: audio.length };
});

await check('voices.update adds a sample', async () => {
  const r = await client.voices.update(voiceId, { name: 'SDK clone 2', files: [file(files[1])] });
  assert(r.status === 'ok', JSON.stringify(r));
  const v = await client.voices.get(voiceId);
  assert(v.name === 'SDK clone 2' && v.samples?.length === 3, `${v.name}, ${v.samples?.length} samples`);
});

// SDK 2.73 has no call for deleting an instant clone's sample: the reference's route, with fetch.
await check('DELETE /v1/voices/{voice_id}/samples/{sample_id}', async () => {
  const res = await fetch(`${baseUrl}/v1/voices/${voiceId}/samples/${samples[0].sampleId}`, { method: 'DELETE', headers: { 'xi-api-key': apiKey } });
  const r = await res.json();
  assert(res.status === 200 && r.status === 'ok', JSON.stringify(r));
  assert((await client.voices.get(voiceId)).samples.length === 2, 'sample still listed');
});

await check('error: a file that is not audio → 422 naming files', async () => {
  try {
    await client.voices.ivc.create({ name: 'Bad', files: [new File([Buffer.from('not audio at all, just text'.repeat(50))], 'x.mp3', { type: 'audio/mpeg' })] });
  } catch (err) {
    assert(err instanceof ElevenLabsError && err.statusCode === 422, `${err}`);
    assert(JSON.stringify(err.body).includes('files'), JSON.stringify(err.body));
    return err.body;
  }
  throw new CheckError('accepted');
});

await check('voices.delete; voices.get → 404', async () => {
  const r = await client.voices.delete(voiceId);
  assert(r.status === 'ok', JSON.stringify(r));
  try {
    await client.voices.get(voiceId);
  } catch (err) {
    assert(err instanceof ElevenLabsError && err.statusCode === 404, `${err}`);
    return;
  }
  throw new CheckError('still there');
});

finish('ivc');
