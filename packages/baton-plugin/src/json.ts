/** A JSON value as plugins exchange it with Baton (config, resource specs and status, attributes). */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };
