/** @module The web dashboard surface, mounted at /ui/ by the HTTP app. */
export { UiAssets } from './assets.ts';
export { type UiDeps, uiRoutes } from './routes.tsx';
export { DashboardSessions, SESSION_COOKIE } from './sessions.ts';
