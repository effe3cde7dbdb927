// Professional voice cloning through the official ElevenLabs JS SDK (voices.pvc.*): create,
// update, samples.create (two recordings of one speaker, made by text to speech), the sample's
// audio and waveform, speaker separation (a job: polled until completed) and a speaker's audio,
// samples.update (trim, speakers), training refused before verification, the captcha read by the
// same speaker, train (a job: polled through voices.get until fine_tuned), speech with the voice,
// manual verification, samples.delete; bad input is refused with a 422 naming the field.
//
//   TIMBRE_BASE_URL=… TIMBRE_API_KEY=… node e2e/pvc.mjs
//
// Normally run by pvc_test.go (which puts the workspace on a plan with a professional voice).
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { CheckError, assert, check, finish, bytesOf } from './checks.mjs';

const baseUrl = process.env.TIMBRE_BASE_URL;
const apiKey = process.env.TIMBRE_API_KEY;
if (!baseUrl || !apiKey) {
  console.error('set TIMBRE_BASE_URL and TIMBRE_API_KEY');
  process.exit(2);
}
const client = new ElevenLabsClient({ baseUrl, apiKey, maxRetries: 0, timeoutInSeconds: 120 });
const adam = 'pNInz6obpgDQGcFmaJgB'; // the speaker of every recording (flite rms)
const rachel = '21m00Tcm4TlvDq8ikWAM';

const speak = async (voice, text) => bytesOf(await client.textToSpeech.convert(voice, { text, modelId: 'eleven_multilingual_v2' }));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(what, fn, ms = 120000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(300)) {
    const v = await fn();
    if (v) return v;
  }
  throw new CheckError(`${what}: not within ${ms} ms`);
}
async function refused(fn, status, field) {
  try {
    await fn();
  } catch (err) {
    assert(err instanceof ElevenLabsError && err.statusCode === status, `${err}`);
    if (field) assert(JSON.stringify(err.body).includes(field), JSON.stringify(err.body));
    return err.body;
  }
  throw new CheckError('accepted');
}

let voiceId;
await check('voices.pvc.create; a missing language → 422', async () => {
  // The SDK checks required fields itself: the server's 422 is asked for with fetch.
  const bad = await fetch(`${baseUrl}/v1/voices/pvc`, { method: 'POST', headers: { 'xi-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'No language' }) });
  assert(bad.status === 422 && (await bad.text()).includes('language'), `missing language: ${bad.status}`);
  const r = await client.voices.pvc.create({ name: 'SDK professional', language: 'en', description: 'Made by the SDK', labels: { accent: 'american' } });
  assert(r.voiceId, JSON.stringify(r));
  voiceId = r.voiceId;
  const v = await client.voices.get(voiceId);
  assert(v.category === 'professional' && Object.values(v.fineTuning.state).every((s) => s === 'not_started'), JSON.stringify(v.fineTuning));
  return r;
});

await check('voices.pvc.update', async () => {
  await client.voices.pvc.update(voiceId, { name: 'SDK professional 2' });
  assert((await client.voices.get(voiceId)).name === 'SDK professional 2', 'not renamed');
});

let samples = [];
await check('voices.pvc.samples.create (two recordings)', async () => {
  const one = await speak(adam, 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well. These days a chicken leg is a rare dish.');
  const two = await speak(adam, 'Rice is often served in round bowls. The juice of lemons makes fine punch. The box was thrown beside the parked truck. The hogs were fed chopped corn and garbage.');
  samples = await client.voices.pvc.samples.create(voiceId, {
    files: [new File([one], 'one.mp3', { type: 'audio/mpeg' }), new File([two], 'two.mp3', { type: 'audio/mpeg' })],
  });
  assert(samples.length === 2 && samples[0].sampleId && samples[0].durationSecs > 5, JSON.stringify(samples));
  return samples.map((s) => s.sampleId);
});

await check('samples.audio.get and samples.waveform.get', async () => {
  const a = await client.voices.pvc.samples.audio.get(voiceId, samples[0].sampleId);
  assert(a.audioBase64.length > 1000 && a.mediaType === 'audio/mpeg', JSON.stringify(a).slice(0, 200));
  const w = await client.voices.pvc.samples.waveform.get(voiceId, samples[0].sampleId);
  assert(w.visualWaveform.length === 400 && Math.max(...w.visualWaveform) > 0.1, `${w.visualWaveform.length} points`);
});

let speakerId;
await check('samples.speakers.separate, .get (job) and speakers.audio.get', async () => {
  const s = await client.voices.pvc.samples.speakers.separate(voiceId, samples[0].sampleId);
  assert(s.status === 'ok', JSON.stringify(s));
  const r = await until('separation', async () => {
    const r = await client.voices.pvc.samples.speakers.get(voiceId, samples[0].sampleId);
    assert(r.status !== 'failed', JSON.stringify(r));
    return r.status === 'completed' && r;
  });
  speakerId = r.selectedSpeakerIds[0];
  assert(speakerId && r.speakers[speakerId].durationSecs > 2, JSON.stringify(r).slice(0, 300));
  const a = await client.voices.pvc.samples.speakers.audio.get(voiceId, samples[0].sampleId, speakerId);
  assert(a.audioBase64.length > 1000 && a.mediaType === 'audio/wav' && a.durationSecs > 2, JSON.stringify(a).slice(0, 120));
  return { speakers: Object.keys(r.speakers) };
});

await check('samples.update (trim, speakers); a trim past the end → 422', async () => {
  const end = Math.floor(samples[1].durationSecs * 1000) - 100;
  await client.voices.pvc.samples.update(voiceId, samples[1].sampleId, { trimStartTime: 0, trimEndTime: end });
  await client.voices.pvc.samples.update(voiceId, samples[0].sampleId, { selectedSpeakerIds: [speakerId] });
  await refused(() => client.voices.pvc.samples.update(voiceId, samples[1].sampleId, { trimEndTime: end + 60000 }), 422, 'trim_end_time');
});

await check('train before verification → 400', async () => {
  return refused(() => client.voices.pvc.train(voiceId, { modelId: 'eleven_multilingual_v2' }), 400, 'voice_not_verified');
});

await check('verification.captcha.get and .verify (the same speaker reads it)', async () => {
  await client.voices.pvc.verification.captcha.get(voiceId); // the SDK drops the body (void)
  const res = await fetch(`${baseUrl}/v1/voices/pvc/${voiceId}/captcha`, { headers: { 'xi-api-key': apiKey } });
  const { text } = await res.json();
  assert(text, 'no captcha text');
  const other = await speak(rachel, text);
  await refused(() => client.voices.pvc.verification.captcha.verify(voiceId, { recording: new File([other], 'c.mp3', { type: 'audio/mpeg' }) }), 400, 'captcha_verification_failed');
  const rec = await speak(adam, text);
  const r = await client.voices.pvc.verification.captcha.verify(voiceId, { recording: new File([rec], 'c.mp3', { type: 'audio/mpeg' }) });
  assert(r.status === 'ok', JSON.stringify(r));
  return { text };
});

await check('voices.pvc.train (job) → fine_tuned, progress 1', async () => {
  const r = await client.voices.pvc.train(voiceId, { modelId: 'eleven_multilingual_v2' });
  assert(r.status === 'ok', JSON.stringify(r));
  const seen = new Set();
  const v = await until('training', async () => {
    const v = await client.voices.get(voiceId);
    const st = v.fineTuning.state.eleven_multilingual_v2;
    seen.add(st);
    assert(st !== 'failed', JSON.stringify(v.fineTuning));
    return st === 'fine_tuned' && v;
  });
  assert(v.fineTuning.progress.eleven_multilingual_v2 === 1, JSON.stringify(v.fineTuning));
  const audio = await speak(voiceId, 'Hello from my professional voice.');
  assert(audio.length > 2000, `${audio.length} bytes`);
  return { states: [...seen], dataset: v.fineTuning.datasetDurationSeconds };
});

await check('verification.request (manual review) and samples.delete', async () => {
  const r = await client.voices.pvc.verification.request(voiceId, { files: [new File([Buffer.from('%PDF-1.4 id')], 'id.pdf', { type: 'application/pdf' })], extraText: 'It is me.' });
  assert(r.status === 'ok', JSON.stringify(r));
  assert((await client.voices.get(voiceId)).fineTuning.manualVerificationRequested === true, 'not requested');
  const d = await client.voices.pvc.samples.delete(voiceId, samples[1].sampleId);
  assert(d.status === 'ok', JSON.stringify(d));
  assert((await client.voices.get(voiceId)).samples.length === 1, 'sample still listed');
});

finish('pvc');
