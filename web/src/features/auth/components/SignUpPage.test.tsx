import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders, type RecordedCall } from '@/test/utils';
import { REFERRAL_KEY } from '@/lib/referral';
import { SignUpPage } from './SignUpPage';

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
  window.history.replaceState({}, '', '/');
});

// The form also asks GET /api/capabilities where the terms are: only the sign-up call counts.
const signUpCalls = (calls: RecordedCall[]) => calls.filter((c) => c.url.pathname === '/api/auth/sign-up');

const TERMS_MESSAGE = 'You must agree to the Terms of Service and Privacy Policy to continue.';

describe('sign-up form validation', () => {
  it('refuses an unchecked terms box with an error and a tooltip, and sends nothing', async () => {
    const { calls } = mockFetch({});
    const user = userEvent.setup();
    renderWithProviders(<SignUpPage />);

    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign up' }));

    const tooltip = await screen.findByRole('tooltip');
    expect(tooltip).toHaveTextContent(TERMS_MESSAGE);
    const checkbox = screen.getByLabelText(/I agree to the Terms of Service/);
    expect(checkbox).toHaveAttribute('aria-invalid', 'true');
    expect(checkbox).toHaveAccessibleDescription(TERMS_MESSAGE);
    expect(signUpCalls(calls)).toHaveLength(0);

    // Checking the box clears the error.
    await user.click(checkbox);
    expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();
  });

  it('validates email and password length', async () => {
    const { calls } = mockFetch({});
    const user = userEvent.setup();
    renderWithProviders(<SignUpPage />);
    await user.type(screen.getByLabelText('Email'), 'not-an-email');
    await user.type(screen.getByLabelText('Password'), 'short');
    await user.click(screen.getByLabelText(/I agree/));
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByText('Please enter a valid email address.')).toBeInTheDocument();
    expect(screen.getByText('Password must be at least 8 characters.')).toBeInTheDocument();
    expect(signUpCalls(calls)).toHaveLength(0);
  });

  it('signs up and shows the check-your-email screen with a dev mailbox link', async () => {
    const { calls } = mockFetch({
      'POST /api/auth/sign-up': () => jsonResponse({ user_id: 'u1', email: 'ada@example.com' }, 201),
      'GET /api/dev/mailbox': () => jsonResponse({ messages: [] }),
    });
    const user = userEvent.setup();
    renderWithProviders(<SignUpPage />);
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByLabelText(/I agree/));
    await user.click(screen.getByRole('button', { name: 'Sign up' }));

    expect(await screen.findByRole('heading', { name: 'Check your email' })).toBeInTheDocument();
    expect(signUpCalls(calls)[0]!.body).toEqual({ email: 'ada@example.com', password: 'correct horse', terms_accepted: true });
    await waitFor(() => expect(screen.getByRole('link', { name: 'development mailbox' })).toHaveAttribute('href', '/app/dev/mailbox'));
  });

  it('password field has a show/hide toggle', async () => {
    mockFetch({});
    const user = userEvent.setup();
    renderWithProviders(<SignUpPage />);
    const password = screen.getByLabelText('Password');
    expect(password).toHaveAttribute('type', 'password');
    await user.click(screen.getByRole('button', { name: 'Show password' }));
    expect(password).toHaveAttribute('type', 'text');
    await user.click(screen.getByRole('button', { name: 'Hide password' }));
    expect(password).toHaveAttribute('type', 'password');
  });

  it('sends a kept referral code as referral_code, then forgets it', async () => {
    window.history.replaceState({}, '', '/app/sign-up?ref=Friend_1');
    const { calls } = mockFetch({
      'POST /api/auth/sign-up': () => jsonResponse({ user_id: 'u1', email: 'ada@example.com' }, 201),
      'GET /api/dev/mailbox': () => jsonResponse({ messages: [] }),
    });
    const user = userEvent.setup();
    renderWithProviders(<SignUpPage />);
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByLabelText(/I agree/));
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByRole('heading', { name: 'Check your email' })).toBeInTheDocument();
    expect(signUpCalls(calls)[0]!.body).toEqual({ email: 'ada@example.com', password: 'correct horse', terms_accepted: true, referral_code: 'Friend_1' });
    expect(localStorage.getItem(REFERRAL_KEY)).toBeNull();
  });

  it('sends no expired referral code', async () => {
    localStorage.setItem(REFERRAL_KEY, JSON.stringify({ value: 'old', expiry: Date.now() - 1 }));
    const { calls } = mockFetch({
      'POST /api/auth/sign-up': () => jsonResponse({ user_id: 'u1', email: 'ada@example.com' }, 201),
      'GET /api/dev/mailbox': () => jsonResponse({ messages: [] }),
    });
    const user = userEvent.setup();
    renderWithProviders(<SignUpPage />);
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByLabelText(/I agree/));
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByRole('heading', { name: 'Check your email' })).toBeInTheDocument();
    expect(signUpCalls(calls)[0]!.body).toEqual({ email: 'ada@example.com', password: 'correct horse', terms_accepted: true });
  });
});

describe('terms and privacy links', () => {
  it('link the built-in pages in a new tab until the server names others', async () => {
    mockFetch({});
    renderWithProviders(<SignUpPage />);
    const terms = screen.getByRole('link', { name: 'Terms of Service' });
    const privacy = screen.getByRole('link', { name: 'Privacy Policy' });
    expect(terms).toHaveAttribute('href', '/terms');
    expect(privacy).toHaveAttribute('href', '/privacy');
    for (const link of [terms, privacy]) {
      expect(link).toHaveAttribute('target', '_blank');
      expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    }
    // The links sit in the checkbox's label, whose name stays the sentence.
    expect(screen.getByRole('checkbox', { name: 'I agree to the Terms of Service and Privacy Policy' })).toBeInTheDocument();
  });

  it("link the operator's pages from /api/capabilities", async () => {
    mockFetch({
      'GET /api/capabilities': () =>
        jsonResponse({ features: [], legal: { terms_url: 'https://acme.test/terms', privacy_url: 'https://acme.test/privacy' } }),
    });
    renderWithProviders(<SignUpPage />);
    await waitFor(() => expect(screen.getByRole('link', { name: 'Terms of Service' })).toHaveAttribute('href', 'https://acme.test/terms'));
    expect(screen.getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', 'https://acme.test/privacy');
  });

  it('show the terms error below the box, apart from the password error', async () => {
    mockFetch({});
    const user = userEvent.setup();
    renderWithProviders(<SignUpPage />);
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'short');
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    const tooltip = await screen.findByRole('tooltip');
    const passwordError = screen.getByText('Password must be at least 8 characters.');
    const checkbox = screen.getByRole('checkbox');
    // In document order: password error, checkbox, then the tooltip (in the flow, not over them).
    expect(passwordError.compareDocumentPosition(checkbox) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(checkbox.compareDocumentPosition(tooltip) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(tooltip.className).not.toMatch(/\babsolute\b/);
  });
});
