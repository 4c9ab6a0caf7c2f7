// Package cliflags holds the flags shared by neardup's command-line
// programs (the neardup command and the Beam pipeline binary), so that the
// same flag means the same run in each: the same names, defaults, help
// texts, checks and error messages.
//
// Command line mistakes are returned as errors wrapping [ErrUsage] whose
// messages name the flag; a program prints them with its usage pointer.
package cliflags
