import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { REFERRAL_KEY } from '@/lib/referral';
import { SignUpPage } from './SignUpPage';

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
  window.history.replaceState({}, '', '/');
});

const TERMS_MESSAGE = 'You must agree to the Terms of Service and Privacy Policy to continue.';

describe('sign-up form validation', () => {
  it('refuses an unchecked terms box with an error and a tooltip, and sends nothing', async () => {
    const { fn } = mockFetch({});
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
    expect(fn).not.toHaveBeenCalled();

    // Checking the box clears the error.
    await user.click(checkbox);
    expect(screen.queryByRole('tooltip')).not.toBeInTheDocument();
  });

  it('validates email and password length', async () => {
    const { fn } = mockFetch({});
    const user = userEvent.setup();
    renderWithProviders(<SignUpPage />);
    await user.type(screen.getByLabelText('Email'), 'not-an-email');
    await user.type(screen.getByLabelText('Password'), 'short');
    await user.click(screen.getByLabelText(/I agree/));
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByText('Please enter a valid email address.')).toBeInTheDocument();
    expect(screen.getByText('Password must be at least 8 characters.')).toBeInTheDocument();
    expect(fn).not.toHaveBeenCalled();
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
    expect(calls[0]!.body).toEqual({ email: 'ada@example.com', password: 'correct horse', terms_accepted: true });
    await waitFor(() => expect(screen.getByRole('link', { name: 'development mailbox' })).toHaveAttribute('href', '/app/dev/mailbox'));
  });

  it('password field has a show/hide toggle', async () => {
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
    expect(calls[0]!.body).toEqual({ email: 'ada@example.com', password: 'correct horse', terms_accepted: true, referral_code: 'Friend_1' });
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
    expect(calls[0]!.body).toEqual({ email: 'ada@example.com', password: 'correct horse', terms_accepted: true });
  });
});
