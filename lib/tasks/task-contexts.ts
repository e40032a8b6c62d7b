/**
 * Which handler contexts are the `ctx` of work running as a task
 * (lib/tasks/task-context.ts): `runAsTask` called there runs the work in the
 * task it is in. A mark rather than `instanceof`, so the public
 * `runAsTask` (lib/tasks/run-as-task.ts) does not load the tasks machinery,
 * which only a deployment with `tasks` uses (lib/endpoint/state.ts).
 */
const taskContexts = new WeakSet<object>()

export function markTaskContext (ctx: object): void {
  taskContexts.add(ctx)
}

export function isTaskContext (ctx: object): boolean {
  return taskContexts.has(ctx)
}
