/**
 * Shutdown's time budget. A stopping process must exit within {@link SHUTDOWN_DEADLINE_MS}
 * whatever is open: requests in flight get {@link SHUTDOWN_GRACE_MS} to finish before every
 * connection is cut, and each closing step (a database pool, a worker, a scheduler pass) gets
 * {@link CLOSE_STEP_MS} before it is abandoned with a warning.
 */
export const SHUTDOWN_DEADLINE_MS = 5_000;
export const SHUTDOWN_GRACE_MS = 2_000;
export const CLOSE_STEP_MS = 1_000;

/**
 * Waits for `work` to settle, but no longer than `ms`; past that, calls `onOverrun` and returns
 * without it. For shutdown steps (closing a pool, a worker, a running scheduler pass), which
 * must not keep a stopping process alive because a peer stopped answering.
 */
export async function settleWithin(work: Promise<unknown>, ms: number, onOverrun: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<'overrun'>((resolve) => {
    timer = setTimeout(() => resolve('overrun'), ms);
    timer.unref();
  });
  const outcome = await Promise.race([
    work.then(
      () => 'done' as const,
      () => 'done' as const,
    ),
    overrun,
  ]);
  clearTimeout(timer);
  if (outcome === 'overrun') onOverrun();
}
