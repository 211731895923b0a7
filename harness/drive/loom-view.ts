/**
 * An adapter whose `loom()` and `thread()` answer with their turns passed through a view: how the drive
 * reads a loom written in a draft's own words (draft-roles.ts, draft-field-words.ts). Every other member is
 * the adapter's own, its methods called on the adapter itself (a class's private fields stay reachable).
 */
import type { Adapter, Result } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';

export function withLoomView(adapter: Adapter, view: (turns: Turn[]) => Turn[]): Adapter {
  const read = (result: Result<{ turns: Turn[] }>): Result<{ turns: Turn[] }> =>
    result.ok && Array.isArray(result.value?.turns) ? { ...result, value: { ...result.value, turns: view(result.value.turns) } } : result;
  const own: Partial<Adapter> = {
    loom: async () => read(await adapter.loom()),
    thread: async (leaf: string) => read(await adapter.thread(leaf)),
  };
  return new Proxy(adapter, {
    get(target, key) {
      if (key === 'loom' || key === 'thread') return own[key];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
