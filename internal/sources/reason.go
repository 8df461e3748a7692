package sources

import (
	"errors"
	"strconv"

	"parley/internal/crawler"
	"parley/internal/domain"
)

// A sync's outcome is kept twice: in plain English words (domain.Source
// Error and Note, what the API returns) and as reasons (ErrorReasons,
// NoteReasons), codes with their values, from which the dashboard words
// it in the owner's language. The crawler names why a start gave nothing
// (crawler.Code…); the codes below are the service's own.

// The service's codes, each with its values in order.
const (
	// ReasonEmpty: the crawl found no page with text, nothing fetched.
	ReasonEmpty = "empty"
	// ReasonEmptyFetched: the same after fetching some; the count fetched.
	ReasonEmptyFetched = "empty_fetched"
	// ReasonNotStarted: the job queue refused the sync.
	ReasonNotStarted = "not_started"
	// ReasonBound: pages left out over the agent's bound on source text;
	// their count, the bound in characters.
	ReasonBound = "bound"
	// ReasonCut: pages cut to their beginning; their count, the most
	// characters kept of one.
	ReasonCut = "cut"
	// ReasonUnreadable: pages or files with no readable text; their count.
	ReasonUnreadable = "unreadable"
	// ReasonDuplicate: pages repeating another's text; their count.
	ReasonDuplicate = "duplicate"
	// ReasonCrawlTime: the crawl's time limit ran out before the whole
	// site was seen.
	ReasonCrawlTime = "crawl_time"
)

// Arg is how a reader shows one value of a reason.
type Arg int

const (
	ArgText  Arg = iota // as it is: a URL, a status, a content type, a duration
	ArgCount            // a whole number, shown with its digits grouped
	ArgClass            // an outbound.Class key: the kind of address, said in words
)

// Reasons lists every code a sync records, the crawler's and the
// service's, with how each of its values is shown: message catalogues
// must word each (the dashboard's tests check them all).
var Reasons = map[string][]Arg{
	crawler.CodeNotURL:         {ArgText},
	crawler.CodeRefused:        {ArgText, ArgClass},
	crawler.CodeBadURL:         {ArgText, ArgText},
	crawler.CodeStatus:         {ArgText, ArgText},
	crawler.CodeNotText:        {ArgText, ArgText},
	crawler.CodeTooLarge:       {ArgText, ArgCount},
	crawler.CodeOffSite:        {ArgText, ArgText},
	crawler.CodeRobotsRedirect: {ArgText, ArgText},
	crawler.CodeTimeout:        {ArgText, ArgText},
	crawler.CodeNoDNS:          {ArgText, ArgText},
	crawler.CodeConnRefused:    {ArgText},
	crawler.CodeUnreachable:    {ArgText, ArgText},
	crawler.CodeRobotsStatus:   {ArgText, ArgText},
	crawler.CodeRobotsSite:     nil,
	crawler.CodeRobotsStart:    {ArgText},
	crawler.CodeTimeLimit:      {ArgText, ArgText},
	ReasonEmpty:                nil,
	ReasonEmptyFetched:         {ArgCount},
	ReasonNotStarted:           nil,
	ReasonBound:                {ArgCount, ArgCount},
	ReasonCut:                  {ArgCount, ArgCount},
	ReasonUnreadable:           {ArgCount},
	ReasonDuplicate:            {ArgCount},
	ReasonCrawlTime:            nil,
}

func reason(code string, args ...int) domain.Reason {
	r := domain.Reason{Code: code}
	for _, a := range args {
		r.Args = append(r.Args, strconv.Itoa(a))
	}
	return r
}

// crawlReasons are a failed crawl's reasons: the crawler's code; none for
// an error it did not name (the store's, while pages were taken in).
func crawlReasons(err error) []domain.Reason {
	var se *crawler.StartError
	if !errors.As(err, &se) {
		return nil
	}
	return []domain.Reason{{Code: se.Code, Args: se.Args}}
}
