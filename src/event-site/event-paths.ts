/** Links of one event's public pages. */
export const eventPaths = {
  page: (id: string) => `/e/${id}`,
  speaker: (id: string, speakerId: string) => `/e/${id}/speakers/${speakerId}`,
  register: (id: string, ticketTypeId?: string) =>
    `/e/${id}/register${ticketTypeId ? `?ticket=${encodeURIComponent(ticketTypeId)}` : ""}`,
  agendaIcs: (id: string) => `/e/${id}/agenda.ics`,
  sessionIcs: (id: string, sessionId: string) => `/e/${id}/sessions/${sessionId}.ics`,
};
