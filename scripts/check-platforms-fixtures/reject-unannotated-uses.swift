// expect: symbol symbol symbol
// A use at file level and two (the style and the call) in a function without availability.
let timeout = Duration.seconds(1)

func stamp(_ date: Date) -> String {
    date.formatted(Date.ISO8601FormatStyle())
}
