import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { api, setUnauthorizedHandler } from "./client";
import type { ConsoleSession, LoginResponse } from "./types";

type SessionState = { status: "loading" } | { status: "anonymous" } | { status: "signed-in"; session: ConsoleSession };

interface SessionApi {
  state: SessionState;
  login(email: string, password: string): Promise<void>;
  logout(): Promise<void>;
}

const SessionContext = createContext<SessionApi | null>(null);

/** Who is logged in: asked once when the app loads, set by login, cleared by logout or any 401. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: "loading" });
  const queries = useQueryClient();

  useEffect(() => {
    setUnauthorizedHandler(() => {
      queries.clear();
      setState({ status: "anonymous" });
    });
    api<ConsoleSession>("GET", "/api/console/session")
      .then((session) => setState({ status: "signed-in", session }))
      .catch(() => setState({ status: "anonymous" }));
  }, [queries]);

  const login = useCallback(async (email: string, password: string) => {
    const answer = await api<LoginResponse>("POST", "/api/console/login", { email, password });
    setState({ status: "signed-in", session: { expiresAt: answer.expiresAt, user: answer.user } });
  }, []);

  const logout = useCallback(async () => {
    await api("POST", "/api/console/logout").catch(() => undefined);
    queries.clear();
    setState({ status: "anonymous" });
  }, [queries]);

  const value = useMemo(() => ({ state, login, logout }), [state, login, logout]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionApi {
  const value = useContext(SessionContext);
  if (!value) throw new Error("useSession outside SessionProvider");
  return value;
}
