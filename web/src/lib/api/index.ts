export { ApiError, errorFromBody, httpErrorMessage, isApiError } from './errors';
export { client, createApiClient, csrfMiddleware, unwrap, unwrapWithResponse } from './client';
export type { Operations, Schemas, paths } from './client';
export type { HistoryFeedback, HistoryItem } from './extra';
