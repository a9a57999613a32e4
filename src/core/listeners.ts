import type { FastifyBaseLogger } from 'fastify';

export type Listener<Event> = (event: Event) => void | Promise<void>;

/**
 * Who follows something without driving it (a run's or a query's status changes). Whatever a
 * listener does or throws, the emitter goes on: its errors, also an asynchronous listener's, are
 * logged with what `describe` says of the event, and dropped.
 */
export class Listeners<Event> {
  private readonly listeners = new Set<Listener<Event>>();

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly failure: string,
    private readonly describe: (event: Event) => Record<string, unknown>,
  ) {}

  /** Adds a listener; the function returned removes it. */
  add(listener: Listener<Event>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: Event): void {
    for (const listener of this.listeners) {
      try {
        const result = listener(event);
        if (result instanceof Promise) result.catch((error: unknown) => this.failed(error, event));
      } catch (error) {
        this.failed(error, event);
      }
    }
  }

  private failed(error: unknown, event: Event): void {
    this.log.error({ err: error, ...this.describe(event) }, this.failure);
  }
}
