// Sound effects through the official ElevenLabs JS SDK: textToSoundEffects.convert with every
// field (mp3 by default, pcm_16000 of the exact duration, looped, the server picking the
// duration), the character-cost and recipe headers, and the SDK's 422 for a duration out of range.
//
//   TIMBRE_BASE_URL=http://127.0.0.1:8080 TIMBRE_API_KEY=sk_… node e2e/sfx_sdk.mjs
//
// Prints one JSON line per check and exits 1 when any fails. Normally run by sfx_test.go.
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

await check('textToSoundEffects.convert (mp3, all fields)', async () => {
  const { data, rawResponse } = await client.textToSoundEffects
    .convert({ text: 'a door creaks then slams', durationSeconds: 2, promptInfluence: 0.5, loop: false, modelId: 'eleven_text_to_sound_v2' })
    .withRawResponse();
  const buf = await bytesOf(data);
  assert(isMp3(buf), 'not mp3');
  assert(rawResponse.headers.get('character-cost') === '80', `character-cost ${rawResponse.headers.get('character-cost')}`);
  const recipes = rawResponse.headers.get('x-timbre-sfx-recipes');
  assert(recipes === 'door_creak,door_slam', `recipes ${recipes}`);
  return { bytes: buf.length, recipes };
});

await check('textToSoundEffects.convert (pcm_16000, exact duration, loop)', async () => {
  const buf = await bytesOf(await client.textToSoundEffects.convert({ text: 'heavy rain', durationSeconds: 3.25, loop: true, outputFormat: 'pcm_16000' }));
  const secs = buf.length / 2 / 16000;
  assert(Math.abs(secs - 3.25) <= 0.01, `${secs} s`);
  return { secs };
});

await check('textToSoundEffects.convert (server picks the duration)', async () => {
  const buf = await bytesOf(await client.textToSoundEffects.convert({ text: 'a glass window shattering', outputFormat: 'pcm_16000' }));
  const secs = buf.length / 2 / 16000;
  assert(secs >= 0.5 && secs <= 30, `${secs} s`);
  return { secs };
});

await check('textToSoundEffects.convert refuses duration_seconds 31 (422)', async () => {
  try {
    await bytesOf(await client.textToSoundEffects.convert({ text: 'rain', durationSeconds: 31 }));
  } catch (err) {
    assert(err instanceof ElevenLabsError && err.statusCode === 422, `got ${err}`);
    assert(JSON.stringify(err.body).includes('duration_seconds'), `422 body ${JSON.stringify(err.body)}`);
    return;
  }
  throw new Error('no error');
});

finish('sfx sdk');
