// Pronunciation dictionaries in headless Chromium: sign in → Pronunciation from the sidebar →
// create a dictionary → add an alias rule (CEO → chief executive officer) and a phoneme rule in
// ARPAbet, each change showing its new version → play a rule (text to speech with the dictionary:
// the audio arrives) → download the version as PLS → archive it.
//
//   TIMBRE_BASE_URL=… USER_EMAIL=… USER_PASSWORD=… node e2e/pronunciation.mjs
//
// Normally run by pronunciation_test.go. Screenshot: screenshots/pronunciation-dictionaries.png.
import { readFileSync } from 'node:fs';
import { assert, env, fillSignIn, run } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const email = env('USER_EMAIL');
const password = env('USER_PASSWORD');

await run('pronunciation', async ({ newPage, step, shot }) => {
  const page = await newPage('user');
  const editor = page.getByRole('form', { name: 'Add a rule' });

  await step('sign in and open Pronunciation from the sidebar', page, async () => {
    await page.goto('/app/sign-in');
    await fillSignIn(page, email, password);
    await page.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    await finishOnboarding(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Pronunciation' }).click();
    await page.waitForURL(/\/app\/pronunciation-dictionaries$/);
    await page.getByRole('heading', { name: 'Pronunciation dictionaries' }).waitFor();
  });

  await step('create a dictionary', page, async () => {
    await page.getByLabel('New dictionary').fill('Company words');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Company words' }).waitFor();
    await page.getByText('No rules yet.').waitFor();
  });

  await step('add an alias rule and a phoneme rule: each makes a version', page, async () => {
    await editor.getByLabel('Word or phrase').fill('CEO');
    await editor.getByLabel('Say instead').fill('chief executive officer');
    await editor.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('status').filter({ hasText: '(1 rules)' }).waitFor();
    await editor.getByLabel('Rule type').selectOption('phoneme');
    await editor.getByLabel('Word or phrase').fill('tomato');
    await editor.getByLabel('Alphabet').selectOption('cmu-arpabet');
    await editor.getByLabel('Phonemes').fill('T AH0 M AA1 T OW0');
    await editor.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('status').filter({ hasText: '(2 rules)' }).waitFor();
    await page.getByText('/T AH0 M AA1 T OW0/ (CMU ARPAbet)').waitFor();
    const version = await page.getByTestId('dictionary-version').textContent();
    assert(version.includes('2 rules'), `version line: ${version}`);
  });

  await step('play a rule: text to speech with the dictionary', page, async () => {
    const answer = page.waitForResponse((r) => r.url().includes('/v1/text-to-speech/') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Play CEO' }).click();
    const res = await answer;
    assert(res.status() === 200, `text to speech: ${res.status()}`);
    assert((res.headers()['content-type'] ?? '').startsWith('audio/mpeg'), `content type ${res.headers()['content-type']}`);
    const sent = res.request().postDataJSON();
    assert(sent.pronunciation_dictionary_locators?.length === 1, `locators ${JSON.stringify(sent)}`);
    // The global player takes the audio and shows the sample sentence.
    await page.getByText('Here is how CEO sounds.').waitFor();
    await shot(page, 'pronunciation-dictionaries');
  });

  await step('download the PLS', page, async () => {
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download PLS' }).click();
    const file = await download;
    assert(file.suggestedFilename() === 'Company words.pls', `file ${file.suggestedFilename()}`);
    const text = readFileSync(await file.path(), 'utf8');
    assert(text.includes('<alias>chief executive officer</alias>') && text.includes('T AH0 M AA1 T OW0'), text);
  });

  await step('archive', page, async () => {
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('button', { name: 'Unarchive' }).waitFor();
    await page.getByTestId('dictionary-list').getByText('archived').waitFor();
  });
});
