import { api } from '@/lib/api-client';

export interface MailboxMessage {
  id: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  created_at_unix: number;
}

export const getMailbox = () => api.get<{ messages: MailboxMessage[] }>('/api/dev/mailbox');
