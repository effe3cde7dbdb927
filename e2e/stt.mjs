// Speech to text in headless Chromium: sign in → the Speech to Text page from the sidebar → drop
// a file of Timbre's own speech on the drop zone (upload and transcription progress) → the
// transcript opens → a click on a word plays the audio from that word, which lights up → rename
// the speaker → edit a word of the text → download the SRT, which carries the edit → with the
// options diarization, speaker roles and entity detection, the file again: the options are sent
// and the transcript shows the role and the entities.
//
//   TIMBRE_BASE_URL=… USER_EMAIL=… USER_PASSWORD=… SPEECH_FILE=speech.mp3 node e2e/stt.mjs
//
// Normally run by stt_test.go, which makes SPEECH_FILE with Timbre's text to speech. Screenshot:
// screenshots/speech-to-text.png.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { assert, env, fillSignIn, run } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const email = env('USER_EMAIL');
const password = env('USER_PASSWORD');
const speechFile = env('SPEECH_FILE');

await run('stt', async ({ newPage, step, shot }) => {
  const page = await newPage('user');

  await step('sign in and open Speech to Text from the sidebar', page, async () => {
    await page.goto('/app/sign-in');
    await fillSignIn(page, email, password);
    await page.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    await finishOnboarding(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Speech to Text' }).click();
    await page.waitForURL('**/app/speech-to-text');
    await page.getByRole('heading', { name: 'Speech to Text' }).waitFor();
    await page.getByText('No transcripts yet').waitFor();
  });

  const id = await step('drop the audio: upload, transcription, the transcript opens', page, async () => {
    const bytes = readFileSync(speechFile).toString('base64');
    const name = basename(speechFile);
    // A drop as a person's drag from the file manager makes it: a DataTransfer holding the file.
    const dataTransfer = await page.evaluateHandle(
      ({ bytes, name }) => {
        const data = Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([data], name, { type: 'audio/mpeg' }));
        return dt;
      },
      { bytes, name },
    );
    const answer = page.waitForResponse((r) => r.url().endsWith('/v1/speech-to-text') && r.request().method() === 'POST', { timeout: 60_000 });
    const zone = page.getByTestId('stt-dropzone');
    await zone.dispatchEvent('dragover', { dataTransfer });
    await zone.dispatchEvent('drop', { dataTransfer });
    // The upload's bar, then the transcription's (the upload of a small file may finish at once).
    await page.getByTestId('stt-upload-progress').or(page.getByTestId('stt-transcription-progress')).first().waitFor({ timeout: 5_000 });
    const res = await answer;
    assert(res.status() === 200, `POST /v1/speech-to-text → ${res.status()}: ${(await res.text()).slice(0, 300)}`);
    const { transcription_id } = await res.json();
    await page.waitForURL(`**/app/speech-to-text/${transcription_id}`);
    await page.getByTestId('stt-title').filter({ hasText: name }).waitFor();
    await page.getByTestId('stt-transcript-row').filter({ hasText: name }).waitFor();
    return transcription_id;
  });

  const words = await step('the words are shown under the speaker; the audio is loaded', page, async () => {
    await page.getByTestId('stt-word').first().waitFor();
    const texts = await page.getByTestId('stt-word').allTextContents();
    assert(texts.length >= 5, `only ${texts.length} words: ${texts.join(' ')}`);
    const said = texts.join(' ').toLowerCase();
    assert(/walk|park|nice|day/.test(said), `the transcript is not the speech: ${said}`);
    assert((await page.getByTestId('stt-paragraph-speaker').first().textContent()).startsWith('Speaker 1'), 'no speaker label');
    const audio = page.getByTestId('stt-audio');
    await page.waitForFunction(() => document.querySelector('[data-testid="stt-audio"]')?.readyState >= 1);
    const duration = await audio.evaluate((a) => a.duration);
    assert(duration > 1 && duration < 10, `audio duration ${duration}`);
    return texts;
  });

  await step('a click on a word plays from it and lights it up', page, async () => {
    const view = await (await page.request.get(`/api/speech-to-text/transcripts/${id}`)).json();
    const timed = view.transcript.words.filter((w) => w.type === 'word');
    const k = Math.min(3, timed.length - 2);
    await page.getByTestId('stt-word').nth(k).click();
    const t = await page.getByTestId('stt-audio').evaluate((a) => a.currentTime);
    assert(Math.abs(t - timed[k].start) < 0.35, `played from ${t}, the word starts at ${timed[k].start}`);
    await page.locator('[data-testid="stt-word"][aria-current="true"]').first().waitFor({ timeout: 5_000 });
    const lit = await page.locator('[data-testid="stt-word"][aria-current="true"]').first().textContent();
    assert(words.slice(k).includes(lit), `lit "${lit}", not a word from the clicked one on`);
    await page.getByTestId('stt-audio').evaluate((a) => a.pause());
  });

  await step('rename the speaker', page, async () => {
    await page.getByRole('button', { name: 'Rename Speaker 1' }).click();
    await page.getByLabel('Name for Speaker 1').fill('Narrator');
    await page.getByRole('list', { name: 'Speakers' }).getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('stt-paragraph-speaker').filter({ hasText: 'Narrator' }).first().waitFor();
    await page.getByRole('button', { name: 'Rename Narrator' }).waitFor();
  });

  await step('edit the first word of the text', page, async () => {
    await page.getByRole('button', { name: 'Edit text' }).click();
    const area = page.getByLabel('Transcript text');
    const text = await area.inputValue();
    await area.fill(text.replace(/^\S+/, 'Truly'));
    await page.getByRole('button', { name: 'Save text' }).click();
    await page.getByTestId('stt-word').first().filter({ hasText: 'Truly' }).waitFor();
    await page.getByTestId('stt-transcript-row').filter({ hasText: 'Truly' }).waitFor();
  });

  await step('download the SRT', page, async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'SRT' }).click()]);
    const srt = readFileSync(await download.path(), 'utf8');
    assert(download.suggestedFilename() === basename(speechFile).replace(/\.mp3$/, '.srt'), `file name ${download.suggestedFilename()}`);
    assert(/^1\r?\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}\r?\nTruly /.test(srt), `not the edited SRT: ${srt.slice(0, 200)}`);
    await shot(page, 'speech-to-text');
    return { srt: srt.split('\n').slice(0, 3).join(' | ') };
  });

  await step('options: entities and speaker roles go with the upload and show in the transcript', page, async () => {
    await page.getByText('Options', { exact: true }).click();
    const rolesBox = page.getByLabel('Agent and customer');
    assert(await rolesBox.isDisabled(), 'roles are offered without diarization');
    await page.getByLabel('Tell speakers apart').check();
    await rolesBox.check();
    await page.getByLabel('Find entities').selectOption('all');
    await page.getByLabel('Redact them').waitFor();
    const bytes = readFileSync(speechFile).toString('base64');
    const dataTransfer = await page.evaluateHandle(
      ({ bytes }) => {
        const dt = new DataTransfer();
        dt.items.add(new File([Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0))], 'options.mp3', { type: 'audio/mpeg' }));
        return dt;
      },
      { bytes },
    );
    const answer = page.waitForResponse((r) => r.url().endsWith('/v1/speech-to-text') && r.request().method() === 'POST', { timeout: 60_000 });
    await page.getByTestId('stt-dropzone').dispatchEvent('drop', { dataTransfer });
    const res = await answer;
    // (Chromium does not show a multipart body with a file to the test: the answer tells what was asked.)
    assert(res.status() === 200, `POST /v1/speech-to-text → ${res.status()}: ${(await res.text()).slice(0, 300)}`);
    const body = await res.json();
    assert(Array.isArray(body.entities), `entity_detection not applied: ${JSON.stringify(body).slice(0, 300)}`);
    const roles = new Set(body.words.filter((w) => w.type === 'word').map((w) => w.speaker_id));
    assert([...roles].every((r) => r === 'agent' || r === 'customer') && roles.size > 0, `speaker ids ${[...roles]}`);
    await page.getByTestId('stt-title').filter({ hasText: 'options.mp3' }).waitFor();
    const label = (await page.getByTestId('stt-paragraph-speaker').first().textContent()) ?? '';
    assert(/^(Agent|Customer) /.test(label), `speaker label ${label}`);
    const entities = page.getByRole('region', { name: 'Entities' });
    await entities.or(page.getByText('No entities were found in this transcript.')).first().waitFor();
    return { label, entities: body.entities.length };
  });
});
