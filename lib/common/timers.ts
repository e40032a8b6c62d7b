/**
 * Timer bounds shared by the options checks and the code that sets timers.
 */

/** The longest delay `setTimeout` and `setInterval` accept (a larger one fires at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** Settles as `work` does, or rejects once `limitMs` passed without an answer; the timer never outlives it. */
export async function boundedWait<T> (work: Promise<T>, limitMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      work,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${limitMs} ms`)), limitMs)
      })
    ])
  } finally {
    clearTimeout(timer)
  }
}

/** Settles once `work` does, or resolves once `limitMs` passed without it (the caller goes on); the timer never outlives it. */
export async function waitAtMost (work: Promise<unknown>, limitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([work, new Promise<void>((resolve) => { timer = setTimeout(resolve, limitMs) })])
  } finally {
    clearTimeout(timer)
  }
}
