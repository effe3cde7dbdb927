export { ApiError, errorFromBody, httpErrorMessage, isApiError } from './errors';
export { client, createApiClient, csrfMiddleware, unwrap, unwrapWithResponse } from './client';
export type { HistoryItem, Operations, Schemas, paths } from './client';
