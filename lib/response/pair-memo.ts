/**
 * A bounded memo keyed by a pair of values: a repeated pair gets the very
 * value computed the first time (the same object, so later lookups by it are
 * cheap too). Lookups hash the two values as they are, never a joined key.
 * When full, it starts over, so pairs nobody repeats cannot crowd out those
 * that are.
 */
export class PairMemo<A, B, V> {
  readonly #limit: number
  readonly #compute: (first: A, second: B) => V
  readonly #byFirst = new Map<A, Map<B, V>>()
  #size = 0

  constructor (limit: number, compute: (first: A, second: B) => V) {
    this.#limit = limit
    this.#compute = compute
  }

  get (first: A, second: B): V {
    const known = this.#byFirst.get(first)?.get(second)
    if (known !== undefined) return known
    if (this.#size >= this.#limit) {
      this.#byFirst.clear()
      this.#size = 0
    }
    const value = this.#compute(first, second)
    let bySecond = this.#byFirst.get(first)
    if (bySecond === undefined) {
      bySecond = new Map()
      this.#byFirst.set(first, bySecond)
    }
    bySecond.set(second, value)
    this.#size++
    return value
  }
}
