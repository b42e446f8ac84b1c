import { AnonymousCap } from "../../../src/modules/billing/rate-limit/anonymous-cap.js";
import { describeAnonymousCapBehaviour } from "./rate-limit.behaviour.js";

describeAnonymousCapBehaviour("in-memory", () => new AnonymousCap());
