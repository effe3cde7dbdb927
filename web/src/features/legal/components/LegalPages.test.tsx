import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { PrivacyPage, TermsPage } from './LegalPages';

afterEach(() => vi.unstubAllGlobals());

const operatorLinks = () =>
  mockFetch({
    'GET /api/capabilities': () =>
      jsonResponse({ features: [], legal: { terms_url: 'https://acme.test/terms', privacy_url: 'https://acme.test/privacy' } }),
  });

describe('built-in terms and privacy pages', () => {
  it('terms: a self-hosted server, run by its operator, whose own terms apply', async () => {
    mockFetch({ 'GET /api/capabilities': () => jsonResponse({ features: [], legal: { terms_url: '/terms', privacy_url: '/privacy' } }) });
    renderWithProviders(<TermsPage />);
    expect(screen.getByRole('heading', { level: 1, name: 'Terms of Service' })).toBeInTheDocument();
    expect(screen.getAllByText(/self-hosted voice software/)[0]).toBeInTheDocument();
    expect(screen.getByText(/The operator’s own terms apply/)).toHaveTextContent('ask them for theirs');
    expect(screen.queryByText(/publishes their terms/)).toBeNull();
  });

  it("terms: links the operator's own page when they set one", async () => {
    operatorLinks();
    renderWithProviders(<TermsPage />);
    expect(await screen.findByRole('link', { name: 'https://acme.test/terms' })).toHaveAttribute('href', 'https://acme.test/terms');
  });

  it('privacy: what is stored, and that it stays with the operator', async () => {
    operatorLinks();
    renderWithProviders(<PrivacyPage />);
    expect(screen.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeInTheDocument();
    for (const what of ['Your account:', 'Your workspaces:', 'What you generate:', 'The audit log:']) {
      expect(screen.getByText(what)).toBeInTheDocument();
    }
    expect(screen.getByText(/Everything stays with the operator/)).toHaveTextContent('data directory');
    expect(await screen.findByRole('link', { name: 'https://acme.test/privacy' })).toBeInTheDocument();
  });
});
