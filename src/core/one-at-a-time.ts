/** Runs async tasks one after another, in the order they were handed in. */
export class OneAtATime {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    // The next task waits for this one whether it succeeded or not.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
