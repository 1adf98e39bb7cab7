// export function commentedOut(): void {}
/* export class AlsoCommented {} */
import { readFile } from "node:fs/promises";
import type { Config } from '../web/config';
const path = require('path');

export const PATTERN = /class Fake \{/g;
export const TEMPLATE = `export function notReal() { ${1 + 2} }`;

export function identity<T extends object>(value: T): T {
  return value;
}

export async function load(
  name: string,
  opts: { strict: boolean } = { strict: true },
): Promise<string> {
  return readFile(name, "utf8");
}

export interface Shape {
  area(): number;
}

export type Pair<A, B> = [A, B];

export enum Color { Red, Green }

let counter = 0
export default function (x: number) { return x * 2 }
