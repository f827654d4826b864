/**
 * The shape of a plugin Resource (RES-01, RES-03, RES-04): `{apiVersion, kind, metadata, spec, status}`,
 * with the name rules (apiVersion `<dns-group>/v<N>[alpha|beta<N>]`, path-safe kind and name, k8s-style
 * label keys and values) checked here, each failure one line naming the field. Pure: no I/O.
 */
import { BatonError } from "../../shared/errors.ts";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface ResourceType {
  readonly apiVersion: string;
  readonly kind: string;
}

export interface ResourceRef extends ResourceType {
  readonly name: string;
}

export interface OwnerRef extends ResourceRef {
  readonly uid: string;
}

export interface ResourceMetadata {
  readonly name: string;
  /** The plugin instance (`pi_…`), or `baton-system` for Baton's own Turn resources. */
  readonly namespace: string;
  readonly uid: string;
  readonly generation: number;
  /** A positive integer as a string; +1 on every change. */
  readonly resourceVersion: string;
  readonly creationTimestamp: string;
  readonly owner?: OwnerRef;
  readonly deletionTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface ResourceObject extends ResourceType {
  readonly metadata: ResourceMetadata;
  readonly spec: Json;
  readonly status: JsonObject;
}

/** Baton's reserved read-only type (RES-06), derived from `_baton_turn_summary`. */
export const TURN_TYPE: ResourceType = { apiVersion: "baton.dev/v1alpha1", kind: "Turn" };
export const BATON_SYSTEM_NAMESPACE = "baton-system";

const DNS_LABEL = "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?";
const API_VERSION = new RegExp(`^${DNS_LABEL}(\\.${DNS_LABEL})*/v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`);
const KIND = /^[A-Z][A-Za-z0-9]{0,62}$/;
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
const DNS_SUBDOMAIN = new RegExp(`^${DNS_LABEL}(\\.${DNS_LABEL})*$`);

function invalid(message: string): BatonError {
  return new BatonError("plugin_invalid", message);
}

export function typeKey(type: ResourceType): string {
  return `${type.apiVersion}/${type.kind}`;
}

export function refText(ref: ResourceRef): string {
  return `${ref.apiVersion} ${ref.kind}/${ref.name}`;
}

export function sameType(a: ResourceType, b: ResourceType): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind;
}

/** `example.dev/v1/Task` → the type, or a one-line error (the manifest's `permissions.resourceTypes`). */
export function parseTypeKey(text: string): ResourceType {
  const slash = text.lastIndexOf("/");
  if (slash < 0) throw invalid(`resource type '${text}' must be <apiVersion>/<Kind> (e.g. example.dev/v1/Task)`);
  const type = { apiVersion: text.slice(0, slash), kind: text.slice(slash + 1) };
  checkType(type, `resource type '${text}'`);
  return type;
}

export function checkType(type: ResourceType, what = "resource"): void {
  if (typeof type.apiVersion !== "string" || !API_VERSION.test(type.apiVersion)) {
    throw invalid(`${what}: apiVersion '${String(type.apiVersion)}' must look like <dns-group>/v<N> (e.g. example.dev/v1alpha1), lowercase`);
  }
  if (typeof type.kind !== "string" || !KIND.test(type.kind)) throw invalid(`${what}: kind '${String(type.kind)}' must be letters and digits starting with a capital (e.g. Task)`);
}

export function checkRef(ref: ResourceRef, what = "resource"): void {
  checkType(ref, what);
  if (typeof ref.name !== "string" || !NAME.test(ref.name) || ref.name.includes("..")) {
    throw invalid(`${what}: name '${String(ref.name)}' must be lowercase letters, digits, '-' and '.' (at most 253), starting and ending with a letter or digit`);
  }
}

export function checkLabelKey(key: string, what: string): void {
  const slash = key.indexOf("/");
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) throw invalid(`${what}: label key '${key}' has an invalid prefix (a DNS subdomain, at most 253)`);
  if (!LABEL_NAME.test(name)) throw invalid(`${what}: label key '${key}' must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`);
}

export function checkLabels(labels: unknown, what: string, allowNull = false): void {
  if (labels === undefined) return;
  if (typeof labels !== "object" || labels === null || Array.isArray(labels)) throw invalid(`${what}: labels must be an object of strings`);
  for (const [key, value] of Object.entries(labels)) {
    checkLabelKey(key, what);
    if (value === null && allowNull) continue;
    if (typeof value !== "string" || !LABEL_VALUE.test(value)) throw invalid(`${what}: label '${key}' value '${String(value)}' must be at most 63 letters, digits, '-', '_' or '.'`);
  }
}

export function checkAnnotations(annotations: unknown, what: string, allowNull = false): void {
  if (annotations === undefined) return;
  if (typeof annotations !== "object" || annotations === null || Array.isArray(annotations)) throw invalid(`${what}: annotations must be an object of strings`);
  for (const [key, value] of Object.entries(annotations)) {
    if (key === "") throw invalid(`${what}: an annotation key may not be empty`);
    if (value === null && allowNull) continue;
    if (typeof value !== "string") throw invalid(`${what}: annotation '${key}' must be a string`);
  }
}

/** Plain JSON only (no undefined, functions, NaN, class instances): what survives a file round trip. */
export function checkJson(value: unknown, what: string): Json {
  const walk = (v: unknown, at: string): void => {
    if (v === null || typeof v === "string" || typeof v === "boolean") return;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw invalid(`${what}: ${at} is not a finite number`);
      return;
    }
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, `${at}[${i}]`));
      return;
    }
    if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      for (const [k, item] of Object.entries(v as Record<string, unknown>)) walk(item, `${at}.${k}`);
      return;
    }
    throw invalid(`${what}: ${at} is not plain JSON`);
  };
  walk(value, "value");
  return value as Json;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** RFC 7386 merge patch: objects merge key by key, `null` deletes, anything else replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isJsonObject(patch)) return patch;
  const base: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete base[key];
    else base[key] = mergePatch(base[key] ?? null, value);
  }
  return base;
}

/** Key-order-independent equality of JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isJsonObject(a as Json) && isJsonObject(b as Json)) {
    const ka = Object.keys(a as object);
    const kb = Object.keys(b as object);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => Object.hasOwn(b as object, k) && jsonEqual((a as JsonObject)[k], (b as JsonObject)[k]));
  }
  return false;
}

/** Labels match when every selector pair is present with that exact value (AND). */
export function matchesLabels(object: ResourceObject, matchLabels: Readonly<Record<string, string>> | undefined): boolean {
  if (matchLabels === undefined) return true;
  const labels = object.metadata.labels ?? {};
  return Object.entries(matchLabels).every(([k, v]) => labels[k] === v);
}

/** Deep-freeze (REC-09): what a reconcile receives can't be changed in place. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value as object)) deepFreeze(item);
  }
  return value;
}
