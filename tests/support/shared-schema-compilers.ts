// Every test app of a file registers the same routes, and compiling their schemas is most of
// what building an app costs: here each schema is compiled once per test process instead of once
// per app (docs/testing.md, "What keeps tests fast"). The compiled functions are the ones Fastify
// would build itself; only the repeats are skipped.
import { createRequire } from 'node:module';

type Compile = (route: { schema: unknown }) => unknown;
type CompilerFactory = (externalSchemas: unknown, options: unknown) => Compile;
type Selector = () => CompilerFactory;

/** One factory for the whole process, whose compilers remember what they built by schema and options. */
function sharedSelector(selector: Selector): Selector {
  const factory = selector();
  const built = new Map<string, unknown>();
  const shared: CompilerFactory = (externalSchemas, options) => {
    const compile = factory(externalSchemas, options);
    const context = JSON.stringify([externalSchemas, options]);
    return (route) => {
      const key = `${context}${JSON.stringify(route.schema)}`;
      if (!built.has(key)) built.set(key, compile(route));
      return built.get(key);
    };
  };
  return () => shared;
}

/**
 * Fastify requires its two compiler modules lazily, when an app is built; replacing their exports
 * in Node's module cache first makes every later app of this process use the shared ones.
 */
function install(): void {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  for (const id of ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler']) {
    const cached = fromFastify.cache[fromFastify.resolve(id)];
    const original = (cached?.exports ?? fromFastify(id)) as Selector & Record<string, unknown>;
    if (original['sharedByTests'] === true) continue;
    const module = fromFastify.cache[fromFastify.resolve(id)];
    if (module === undefined) throw new Error(`${id} is not in the module cache`);
    module.exports = Object.assign(sharedSelector(original), original, { sharedByTests: true });
  }
}

install();
