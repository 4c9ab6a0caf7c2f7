// Package cliflags holds the flags shared by neardup's command-line
// programs (the neardup command and the Beam pipeline binary), so that the
// same flag means the same run in each: the same names, defaults, help
// texts, checks and error messages.
//
// Who uses it from outside: the neardup command and neardup-beam, which
// is a separate module and so needs this package public; it is not meant
// for other programs (its flags and messages are those of neardup's
// command line).
//
// Command line mistakes are returned as errors wrapping [ErrUsage] whose
// messages name the flag; a program prints them with its usage pointer.
package cliflags
