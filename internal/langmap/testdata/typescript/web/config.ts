import { identity } from "../lib/util";

export type Config = { name: string };

@Component({ selector: "app" })
export class Widget<T> extends Base implements Shape {
  private readonly items: T[] = [];
  static count = 0
  handler = () => { return 1; };

  constructor(private name: string) {
    super();
  }

  area(): number {
    return 1;
  }

  async render(
    target: HTMLElement,
  ): Promise<void> {
    const s = "render() { not a method }";
  }

  get size(): number { return this.items.length; }
  #secret(): void {}
}

export default class {
  run() {}
}
