// Single sign-on (SAML), in headless Chromium: in a fresh browser a person opens the sign-in page,
// chooses SSO, enters an email at the workspace's SAML domain, is sent (a signed AuthnRequest,
// HTTP-Redirect binding) to the identity provider's login form (crewjam's samlidp, on another
// site: http://localhost:…), signs in there, and the IdP's page posts the SAMLResponse back to
// Timbre's ACS: signed in as a user provisioned into that workspace, past the onboarding survey.
//
//   TIMBRE_BASE_URL=… SAML_EMAIL=… SAML_IDP=… SAML_USER=… SAML_PASSWORD=… WORKSPACE_ID=… WORKSPACE_NAME=… node e2e/saml.mjs
//
// The IdP and the workspace's SSO configuration come from saml_test.go.
// Screenshots: screenshots/saml-idp.png and screenshots/saml-signed-in.png.
import { assert, env, run, session, startSSO } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const base = env('TIMBRE_BASE_URL').replace(/\/$/, '');
const email = env('SAML_EMAIL');
const idp = env('SAML_IDP').replace(/\/$/, '');
const idpUser = env('SAML_USER');
const idpPassword = env('SAML_PASSWORD');
const workspaceId = env('WORKSPACE_ID');
const workspaceName = env('WORKSPACE_NAME');

await run('saml', async ({ newPage, step, shot }) => {
  const page = await newPage('saml');

  await step("sign-in page → SSO → work email: off to the IdP's login form with a signed AuthnRequest", page, async () => {
    await startSSO(page, email);
    await page.waitForURL((u) => u.href.startsWith(`${idp}/sso`));
    await page.getByRole('heading', { name: 'Test SAML identity provider' }).waitFor();
    const q = new URL(page.url()).searchParams;
    assert(q.get('SAMLRequest') && q.get('RelayState'), `no SAMLRequest or RelayState in ${page.url()}`);
    assert(q.get('SigAlg') === 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', `SigAlg ${q.get('SigAlg')}`);
    assert(q.get('Signature'), 'the AuthnRequest is not signed');
    await shot(page, 'saml-idp');
    return { sso: `${idp}/sso`, sig_alg: q.get('SigAlg') };
  });

  await step("sign in at the IdP: its response is posted to Timbre's ACS", page, async () => {
    await page.getByLabel('User').fill(idpUser);
    await page.getByLabel('Password').fill(idpPassword);
    const acs = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/sso/saml/acs'));
    await page.getByRole('button', { name: 'Log In' }).click();
    const req = await acs;
    const form = new URLSearchParams(req.postData() ?? '');
    assert(form.get('SAMLResponse') && form.get('RelayState'), 'the ACS post carries no SAMLResponse or RelayState');
    // Into the app (a new user first meets the onboarding survey): away from the IdP and the ACS.
    await page.waitForURL((u) => u.origin === new URL(base).origin && u.pathname.startsWith('/app/') && !u.pathname.startsWith('/app/sso'));
    return { acs: req.url() };
  });

  const signedIn = await step('in the app, signed in as the provisioned editor of the workspace', page, async () => {
    // A provisioned user is new: the onboarding survey comes first.
    assert(await finishOnboarding(page, { firstName: 'Sally' }), 'the onboarding survey was not shown to the provisioned user');
    const s = await session(page);
    assert(s.email === email, `session email ${s.email}, want ${email}`);
    assert(s.workspace_id === workspaceId, `session workspace ${s.workspace_id}, want ${workspaceId}`);
    assert(s.email_verified === true, 'the provisioned user is verified');
    const trigger = page.getByRole('button', { name: `Workspace: ${workspaceName}. Switch workspace` });
    await trigger.waitFor();
    const text = await trigger.textContent();
    assert(text.includes('Editor'), `switcher: ${text}`);
    return { user_id: s.user_id, first_name: s.first_name, role: 'editor' };
  });

  await step('screenshot: signed in through SAML', page, async () => {
    await page.goto('/app/speech-synthesis/text-to-speech');
    await page.getByRole('heading', { name: 'Text to Speech' }).waitFor();
    await page.getByRole('button', { name: `Workspace: ${workspaceName}. Switch workspace` }).waitFor();
    await shot(page, 'saml-signed-in');
    return signedIn;
  });
});
