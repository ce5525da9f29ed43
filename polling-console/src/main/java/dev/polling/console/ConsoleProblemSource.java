package dev.polling.console;

import java.util.List;

/**
 * Problems the console shows beside those of the clusters and the sections, from a part that has
 * nothing else to show (e.g. the version of polling's tables). Implementations are beans; the console
 * finds them by type. Called for each page load; keep it cheap (cache what a database read costs).
 */
public interface ConsoleProblemSource {

	/** The problems now, each with what to do; empty when all is well. */
	List<ConsoleProblems.Problem> problems();

}
