/**
 * @module One execution's tool-call budget (max_tool_calls) with the runaway rule: the first
 * call over the budget is refused and the program may go on; any attempt after that ends it.
 */
import type { BridgeReply } from '../sandbox/index.ts';

export class CallBudget {
  private used = 0;
  private refusedOnce = false;

  /** `max` = 0: no limit. */
  constructor(private readonly max: number) {}

  private get message(): string {
    return `Exceeded maximum tool calls limit (${this.max})`;
  }

  /** One unit of budget: 'ok', a first refusal, or 'fatal' for an attempt after a refusal. */
  take(): 'ok' | 'refused' | 'fatal' {
    if (this.max === 0 || this.used < this.max) {
      this.used++;
      return 'ok';
    }
    return this.refusedOnce ? 'fatal' : 'refused';
  }

  /** A refusal was answered (a call, or a whole batch as one attempt): the next attempt is fatal. */
  markRefused(): void {
    this.refusedOnce = true;
  }

  /** The refusal of a call over the budget. */
  refusal(): { code: 'MAX_TOOL_CALLS_EXCEEDED'; message: string } {
    return { code: 'MAX_TOOL_CALLS_EXCEEDED', message: this.message };
  }

  /** The end of a run that called again after its refusal. */
  fatal(): BridgeReply {
    return { fatal: this.refusal() };
  }
}
