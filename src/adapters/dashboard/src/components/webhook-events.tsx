// Which events an endpoint receives: all of them, or those ticked in the list (webhooks.ts).
import { WEBHOOK_EVENTS } from '../webhooks.js';

export interface EventsChoice {
  all: boolean;
  chosen: Set<string>;
}

export function eventsChoice(events: string[]): EventsChoice {
  return events.includes('*') ? { all: true, chosen: new Set() } : { all: false, chosen: new Set(events) };
}

export function EventsField({ value, onChange, name = 'events' }: { value: EventsChoice; onChange: (v: EventsChoice) => void; name?: string }) {
  const toggle = (event: string, on: boolean) => {
    const chosen = new Set(value.chosen);
    if (on) chosen.add(event);
    else chosen.delete(event);
    onChange({ all: false, chosen });
  };
  return (
    <fieldset class="checks">
      <legend>Events</legend>
      <label class="check">
        <input type="radio" name={`${name}_scope`} value="all" checked={value.all} onChange={() => onChange({ ...value, all: true })} />
        <span>All events</span>
      </label>
      <label class="check">
        <input type="radio" name={`${name}_scope`} value="chosen" checked={!value.all} onChange={() => onChange({ ...value, all: false })} />
        <span>Only these events</span>
      </label>
      {!value.all && (
        <div class="event-list">
          {WEBHOOK_EVENTS.map((event) => (
            <label key={event} class="check">
              <input type="checkbox" name={`${name}_${event}`} value={event} checked={value.chosen.has(event)} onChange={(e) => toggle(event, e.currentTarget.checked)} />
              <span class="mono">{event}</span>
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}
