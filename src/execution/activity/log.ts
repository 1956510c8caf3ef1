/** @module The activity history a runtime keeps: the recorder that writes and the store that reads. */
import type {
  ActivityOverview,
  ActivityQuery,
  ActivityRecord,
  ActivityStore,
  OverviewWindow,
} from '../../store/index.ts';
import type { ActivityListener, ActivityRecorder } from './recorder.ts';

export interface ActivityPage {
  items: ActivityRecord[];
  total: number;
  limit: number;
  offset: number;
}

export type ActivityWithChildren = ActivityRecord & { children: ActivityRecord[] };

export class ActivityLog {
  constructor(
    readonly recorder: ActivityRecorder,
    private readonly store: ActivityStore,
  ) {}

  /** Newest first; what is still queued is written first so a reader sees its own runs. */
  async list(query: ActivityQuery): Promise<ActivityPage> {
    await this.recorder.flush();
    const { items, total } = await this.store.list(query);
    return { items, total, limit: query.limit, offset: query.offset };
  }

  /** One record with its children in order, or undefined. */
  async get(id: string): Promise<ActivityWithChildren | undefined> {
    await this.recorder.flush();
    const record = await this.store.get(id);
    if (!record) return undefined;
    return { ...record, children: await this.store.children(id) };
  }

  /** The aggregates of a window (the Overview page); what is still queued is written first. */
  async overview(window: OverviewWindow): Promise<ActivityOverview> {
    await this.recorder.flush();
    return this.store.overview(window);
  }

  subscribe(listener: ActivityListener): () => void {
    return this.recorder.subscribe(listener);
  }
}
