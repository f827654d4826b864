/**
 * meta.json's shape checked by hand, so opening a session (and every meta write) needs no zod (#18: the first
 * frame waits for the open). The rules are `sessionMetaSchema`'s (meta.ts); the check says yes only when it is
 * sure the schema accepts the value — anything else goes to the schema, which also words the problem. A property
 * test keeps it so on generated metas and their mutations.
 */
import { isPlainRecord, optionalNumber, optionalString } from "../shared/shape.ts";

const isString = (value: unknown): value is string => typeof value === "string";
const isFilled = (value: unknown): boolean => typeof value === "string" && value.length > 0;
const isSessionId = (value: unknown): boolean => typeof value === "string" && value.startsWith("bs_");

function isLaunchSnapshot(value: unknown): boolean {
  return (
    isPlainRecord(value) &&
    isString(value["harnessTargetId"]) &&
    isString(value["harness"]) &&
    isString(value["harnessSessionKey"]) &&
    isString(value["cwd"]) &&
    optionalString(value["model"]) &&
    optionalString(value["effort"]) &&
    optionalString(value["mode"])
  );
}

function isHarnessSession(value: unknown): boolean {
  if (!isPlainRecord(value)) return false;
  const resume = value["resumeState"];
  return (
    isFilled(value["harnessTargetId"]) &&
    isFilled(value["harness"]) &&
    (value["launchSnapshot"] === undefined || isLaunchSnapshot(value["launchSnapshot"])) &&
    optionalString(value["harnessSessionId"]) &&
    (resume === undefined || (isPlainRecord(resume) && typeof resume["version"] === "number" && Number.isFinite(resume["version"]) && "data" in resume)) &&
    optionalString(value["model"]) &&
    optionalString(value["effort"]) &&
    optionalString(value["mode"]) &&
    optionalString(value["contextEpochId"]) &&
    optionalNumber(value["syncedSeq"])
  );
}

function isForkOrigin(value: unknown): boolean {
  return isPlainRecord(value) && isSessionId(value["batonSessionId"]) && typeof value["throughSeq"] === "number" && Number.isSafeInteger(value["throughSeq"]) && value["throughSeq"] >= 0;
}

function isAdoptionOrigin(value: unknown): boolean {
  if (!isPlainRecord(value) || !("importedThrough" in value)) return false;
  const session = value["session"];
  if (!isPlainRecord(session) || !isString(session["harnessTargetId"]) || !isString(session["harness"])) return false;
  const identity = session["identity"];
  return isPlainRecord(identity) && isString(identity["id"]);
}

/** True only for a value `sessionMetaSchema` accepts (false: let the schema decide). */
export function isMetaShape(value: unknown): boolean {
  if (!isPlainRecord(value)) return false;
  const sessions = value["harnessSessions"];
  if (!isPlainRecord(sessions)) return false;
  for (const entry of Object.values(sessions)) if (!isHarnessSession(entry)) return false;
  return (
    isSessionId(value["batonSessionId"]) &&
    optionalString(value["title"]) &&
    optionalString(value["preview"]) &&
    optionalString(value["description"]) &&
    isFilled(value["cwd"]) &&
    isFilled(value["createdAt"]) &&
    optionalString(value["updatedAt"]) &&
    (value["forkedFrom"] === undefined || isForkOrigin(value["forkedFrom"])) &&
    (value["adoptedFrom"] === undefined || isAdoptionOrigin(value["adoptedFrom"]))
  );
}
